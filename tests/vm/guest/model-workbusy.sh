# Chains through a workqueue whose kworker is busy (issue 43): the test
# device's interrupt (rtmon-model.ko, mode workbusy) comes while that
# cpu's kworker runs a long item; the IRQ thread queues the device's work
# item, which runs after it in the same kworker, with no wakeup to follow.
# Every interrupt whose wakeup woke the reader must still have its record
# (model-device.sh's checks, for this mode only), through the queued item
# (hop queue_work), queued behind the busy kworker; the same run recorded
# with trace-cmd and replayed gives the same chains.
# timeout: 240
MODEL_MODES=workbusy
MODEL_RECORD=1
. "$RTMON_TOP/tests/vm/guest/model-device.sh"
