# harness self-test: a script that fails by its exit status
# timeout: 20
echo "selftest: deliberate failure"
exit 1
