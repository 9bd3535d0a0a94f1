#!/usr/bin/env python3
"""Signs in with Apple to a web example served over https, in a real headless Chromium, against the
stand-in (apple_standin.py).

Usage: python apple_signin.py APP_URL STANDIN_URL ARTIFACTS_DIR NAME SPKI_HASH

The app is https://localhost:PORT (its self-signed certificate trusted through SPKI_HASH, see
self_signed.py) and the stand-in http://127.0.0.1:PORT: two sites, so Apple's form_post answer is a
cross-site POST, which carries the pending sign-in cookie only because it is SameSite=None; Secure.

1. First sign-in: the pending cookie is SameSite=None, Secure and HttpOnly, scoped to the callback; the
   callback arrives as a POST; the app shows the name from Apple's one-time `user` field ("Ada
   Lovelace"), the private-relay e-mail as verified (Apple's string "true"), and says what came only
   once. The stand-in verified the ES256 client secret and sent `user` once.
2. Sign-out: local (Apple has no end-session endpoint, and the page says so), the refresh token revoked
   at /auth/revoke with the same client secret.
3. Second sign-in: no `user` field, so no name; the stand-in sent `user` still only once, and every
   client secret it verified was the one the app signed first (cached, not re-signed per request).
4. A forged answer: the state in Apple's POST altered on its way; the app refuses it and redeems no code.
5. The stand-in refused nothing along the way.
Exits non-zero with the reason on the first failure.
"""
import json
import sys
import time
import urllib.request
from pathlib import Path

from selenium.webdriver.common.by import By

from browser import Browser

APP = sys.argv[1].rstrip("/")
STANDIN = sys.argv[2].rstrip("/")
ARTIFACTS = Path(sys.argv[3])
NAME = sys.argv[4]
SPKI = sys.argv[5]
ARTIFACTS.mkdir(parents=True, exist_ok=True)
CALLBACK = APP + "/auth/apple/callback"


def standin_state():
    with urllib.request.urlopen(STANDIN + "/test/state", timeout=10) as answer:
        return json.load(answer)


def start_sign_in(browser):
    """From the app's home page to the stand-in's Apple page; returns the pending cookie as Chromium holds it."""
    browser.get(APP + "/")
    session.wait_for((By.ID, "signed-out"), "the signed-out home page")
    browser.find_element(By.PARTIAL_LINK_TEXT, "Sign in with Apple").click()
    session.wait_for((By.ID, "continue"), "the stand-in's Apple sign-in page")
    if not browser.current_url.startswith(STANDIN + "/auth/authorize?"):
        session.fail("the sign-in did not go to the stand-in's authorization endpoint")
    query = browser.current_url.split("?", 1)[1]
    for expected in ("response_mode=form_post", "response_type=code", "code_challenge_method=S256", "nonce=", "state="):
        if expected not in query:
            session.fail(f"the authorization request lacks {expected}: {query}")
    cookies = browser.execute_cdp_cmd("Network.getAllCookies", {})["cookies"]
    pending = [cookie for cookie in cookies if cookie["name"].startswith("oauthflow_flow_")]
    if len(pending) != 1:
        session.fail(f"expected one pending sign-in cookie, found {[cookie['name'] for cookie in pending]}")
    return pending[0]


def signed_in(browser):
    session.wait_for((By.ID, "signed-in"), "the signed-in page")
    if not browser.current_url.startswith(APP):
        session.fail("the sign-in did not land back on the app")
    return browser.find_element(By.ID, "name").text, browser.find_element(By.ID, "profile").text


session = Browser(ARTIFACTS, f"Apple browser test ({NAME})", [f"--ignore-certificate-errors-spki-list={SPKI}"])
browser = session.driver
started = time.monotonic()
try:
    # 1. The first sign-in: Apple's answer is a cross-site POST with the one-time `user` field.
    cookie = start_sign_in(browser)
    if cookie.get("sameSite") != "None" or not cookie.get("secure") or not cookie.get("httpOnly") or cookie.get("path") != "/auth/apple/callback":
        session.fail(f"the pending cookie of a form_post provider must be SameSite=None, Secure, HttpOnly, on the callback path: {cookie}")
    session.requests()
    browser.find_element(By.ID, "continue").click()
    name, profile = signed_in(browser)
    posts = [url for method, url in session.requests() if method == "POST" and url == CALLBACK]
    if len(posts) != 1:
        session.fail(f"the callback did not come as one POST to {CALLBACK}")
    if name != "Ada Lovelace":
        session.fail(f"the name from Apple's first-consent `user` field is not shown: {name!r}")
    if "x7k2p9q4rt@privaterelay.appleid.com (verified)" not in profile:
        session.fail(f"the private-relay e-mail is not shown as verified (Apple's string \"true\"): {profile!r}")
    once = browser.find_element(By.ID, "callback-fields").text
    if "user" not in once:
        session.fail(f"the app does not say the `user` field came only now: {once!r}")
    browser.save_screenshot(str(ARTIFACTS / f"apple-signed-in-{NAME}.png"))
    state = standin_state()
    if state["user_sent"] != 1 or state["secrets_verified"] < 1 or state["distinct_secrets"] != 1:
        session.fail(f"the stand-in did not verify one client secret and send `user` once: {state}")
    print(f"signed in with Apple through a form_post POST: {browser.find_element(By.ID, 'signed-in').text}")

    # 2. Sign-out: local, with the refresh token revoked at Apple.
    session.wait_for((By.ID, "sign-out"), "the sign-out button").click()
    here = session.wait_for((By.ID, "signed-out-here"), "the page saying the sign-out was local").text
    if "no end-session endpoint" not in here:
        session.fail(f"the sign-out page does not say Apple's session continues: {here!r}")
    state = standin_state()
    if "refresh_token" not in state["revoked"]:
        session.fail(f"signing out did not revoke the refresh token at Apple: {state}")
    print(f"signed out; revoked at the stand-in: {state['revoked']}")

    # 3. The second sign-in: no `user` field, no name; the same client secret.
    start_sign_in(browser)
    browser.find_element(By.ID, "continue").click()
    name, profile = signed_in(browser)
    if "Ada" in profile or "Lovelace" in profile:
        session.fail(f"a name appeared without Apple's `user` field: {profile!r}")
    if browser.find_elements(By.ID, "callback-fields"):
        session.fail("the app says fields came only now, on a sign-in without them")
    state = standin_state()
    if state["user_sent"] != 1:
        session.fail(f"the stand-in sent `user` again: {state}")
    if state["secrets_verified"] < 3 or state["distinct_secrets"] != 1:
        session.fail(f"the client secret was not reused across requests: {state}")
    print(f"signed in again, without a name: {name}")
    session.wait_for((By.ID, "sign-out"), "the sign-out button").click()
    session.wait_for((By.ID, "signed-out-here"), "the page saying the sign-out was local")

    # 4. A forged answer: the state in Apple's POST altered in the page before it is sent.
    start_sign_in(browser)
    browser.execute_script("document.querySelector('input[name=state]').value = 'forged-' + document.querySelector('input[name=state]').value")
    requests_before = len(standin_state()["token_requests"])
    browser.find_element(By.ID, "continue").click()
    element = session.wait_for((By.ID, "error"), "the error page")
    code = element.get_attribute("data-code")
    # The pending cookie's name derives from the state: an altered state finds no sign-in to finish.
    if code not in ("no_pending_sign_in", "state_mismatch"):
        session.fail(f"a forged state gave {code!r}: {element.text!r}")
    state = standin_state()
    if len(state["token_requests"]) != requests_before:
        session.fail(f"the app redeemed a code that came with a forged state: {state}")
    print(f"forged state refused: {code}")

    # 5. The stand-in refused nothing along the way.
    if state["refused"]:
        session.fail(f"the stand-in refused requests: {state['refused']}")
    print(f"Apple browser test ({NAME}) passed in {time.monotonic() - started:.1f} s; screenshot: {ARTIFACTS / f'apple-signed-in-{NAME}.png'}")
finally:
    session.quit()
