# No false miss on an ARM board: tests/vm/guest/false-miss.sh, as is.
# timeout: 180
. "$RTMON_TOP/tests/vm/guest/false-miss.sh"
