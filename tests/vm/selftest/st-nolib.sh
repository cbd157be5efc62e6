# harness self-test: a script whose commands fail before it sets -e (it
# never sources lib.sh) still fails: the runner runs scripts with bash -e
# timeout: 20
rtmon_helper_that_does_not_exist
echo "selftest: ran on after a failed command"
