# harness self-test: a script that never ends
# timeout: 3
sleep 600
