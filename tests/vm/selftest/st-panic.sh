# harness self-test: the kernel panics
# timeout: 30
echo 1 >/proc/sys/kernel/sysrq
echo c >/proc/sysrq-trigger
sleep 30
