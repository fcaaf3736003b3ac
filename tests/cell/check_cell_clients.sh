#!/bin/sh
# Third-party Modbus clients against kollide-cell (docs/robot-cell.md): Python's pymodbus (Debian's
# python3-pymodbus, run by /usr/bin/python3) drives one lock-step cycle of 4 ms, then mbpoll reads
# the system block: step counter 0, 4 (high word first) and state 1 (running). Exits 77 (skipped)
# where mbpoll or pymodbus is missing.
# Usage: check_cell_clients.sh KOLLIDE_CELL CELL.json OUT_DIR
# SPDX-License-Identifier: MIT
set -u
cell_exe=$1 cell=$2 out=$3
# pymodbus 3.0's client package imports pyserial and serial_asyncio even where only TCP is used
# (Debian's python3-pymodbus recommends python3-serial-asyncio; the package list installs it).
pymodbus_import='import sys
from pymodbus.client import ModbusTcpClient'
if ! command -v mbpoll >/dev/null || ! /usr/bin/python3 -c "$pymodbus_import" 2>/dev/null; then
	echo "mbpoll or Python's pymodbus is not installed: skipped"
	exit 77
fi
port_file=$out/clients.port
rm -f "$port_file"
"$cell_exe" "$cell" --modbus 127.0.0.1:0 --lockstep --port-file "$port_file" &
server=$!
trap 'kill -TERM $server 2>/dev/null; wait $server' EXIT
i=0
while [ ! -s "$port_file" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$port_file") || exit 1

/usr/bin/python3 -c "$pymodbus_import
exec(sys.stdin.read())" "$port" <<'PY' || exit 1
client = ModbusTcpClient("127.0.0.1", port=int(sys.argv[1]))
assert client.connect(), "pymodbus cannot connect"
idle = client.read_input_registers(0, 3, slave=1).registers
assert idle == [0, 0, 0], f"idle system block {idle}"
client.write_registers(0, [4, 1], slave=1)  # HR 0: 4 ms, HR 1: request 1
for _ in range(10000):
    if client.read_input_registers(3, 1, slave=1).registers[0] == 1:
        break
else:
    sys.exit("pymodbus: the cycle was not acknowledged")
bad = client.read_input_registers(3000, 1, slave=1)
assert bad.isError() and bad.exception_code == 2, f"no illegal-address exception: {bad}"
print("pymodbus: cycle acknowledged; an unknown address answered with exception 2")
PY

reply=$(mbpoll -m tcp -p "$port" -a 1 -t 3 -0 -r 0 -c 3 -1 127.0.0.1) || { echo "$reply"; exit 1; }
echo "$reply" | grep '^\['
values=$(echo "$reply" | sed -n 's/^\[[0-9]*\]:[[:space:]]*\(-\{0,1\}[0-9]*\).*/\1/p' | tr '\n' ' ')
if [ "$values" != "0 4 1 " ]; then
	echo "mbpoll read the system block as '$values', expected '0 4 1 '"
	exit 1
fi
echo "mbpoll: system block 0 4 1"
