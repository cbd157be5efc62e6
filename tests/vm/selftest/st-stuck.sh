# harness self-test: a guest that stops answering: the test stops the
# guest's own timeout (its parent), so only the host can end the boot
# timeout: 3
kill -STOP "$PPID"
sleep 600
