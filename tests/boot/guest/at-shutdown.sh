#!/bin/bash
# tests/boot: run by rtmon-boottest-shutdown.service at shutdown, once
# rtmon.service has stopped: its state and its journal to the share.
d=/rtmon-share/shutdown
mkdir -p "$d"
systemctl show rtmon.service -p ActiveState -p SubState -p Result -p ExecMainCode \
	-p ExecMainStatus -p NRestarts >"$d/show.txt" 2>&1
journalctl -b -u rtmon.service -o short-monotonic --no-pager >"$d/journal.txt" 2>&1
systemctl list-jobs --no-pager >"$d/jobs.txt" 2>&1
echo "done" >"$d/done"
sync
