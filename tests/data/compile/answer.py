"""A stand-in LLM command for the tests: reads the prompt on stdin, prints a JSON header object.

--fail: exit 3 with a message on stderr; --prose: answer with prose instead of JSON.
"""

import json
import sys

prompt = sys.stdin.read()
if "--fail" in sys.argv:
    print("error: no model configured", file=sys.stderr)
    sys.exit(3)
if "--prose" in sys.argv:
    print("This file is about tokens.")
    sys.exit(0)
# The first heading of the file's text, to show that the prompt arrived.
body = prompt.split("<<<BEGIN FILE>>>", 1)[-1]
heading = next((line for line in body.splitlines() if line.startswith("# ")), "nothing")
answer = {
    "TLDR": "How the API issues and rotates JWT tokens.",
    "ANSWERS_WHEN": ["jwt", f"seen: {heading}"],
    "SIMILAR_HIGH": ["oauth2"],
    "CONFIDENCE": "medium",
}
print(json.dumps(answer))
