# harness self-test on a KCSAN kernel: the script passes but KCSAN reports
# the data race of rtmon_selftest_kcsan.ko
# timeout: 60
insmod "$SELFTEST_KCSAN_KO"
rmmod rtmon_selftest_kcsan
echo "selftest: script itself passed"
