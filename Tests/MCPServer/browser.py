"""A browser for the MCP command-line tests ($BROWSER): the user is signed in and consents at once, so
following the redirects from the authorization URL reaches the loopback receiver.

    python browser.py URL
"""

import sys
import urllib.request

if __name__ == "__main__":
    with urllib.request.urlopen(sys.argv[1], timeout=20) as answer:
        answer.read()
