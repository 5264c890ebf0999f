"""An MCP server that serves whatever tool schemas it is given (for the hostile-schema tests).

    HOSTILE_SCHEMAS='{"name": {...schema...}, ...}' python hostile.py

Speaks MCP's JSON-RPC over stdio by hand (initialize, tools/list, tools/call, ping), so nothing
between it and nanobot cleans the schemas up.
"""

import json
import os
import sys

SCHEMAS = json.loads(os.environ["HOSTILE_SCHEMAS"])

for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if "id" not in msg:
        continue  # a notification
    method = msg.get("method")
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "hostile", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [{"name": n, "description": f"tool {n}", "inputSchema": s}
                            for n, s in SCHEMAS.items()]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "called"}], "isError": False}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
    sys.stdout.flush()
