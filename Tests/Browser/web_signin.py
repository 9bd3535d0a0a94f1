#!/usr/bin/env python3
"""Signs in to a web example (Examples/WebSignIn on Hummingbird, Examples/VaporSignIn on Vapor) in a
real, headless Chromium.

Usage: python web_signin.py APP_URL ARTIFACTS_DIR [NAME] [--metrics]

The app is served as http://localhost:PORT and Django OAuth Toolkit as http://127.0.0.1:PORT:
two sites, so the pending sign-in cookie crosses sites on the way back from the provider as
it does in production (SameSite=Lax must let a top-level GET redirect carry it). NAME (default
"web") names the screenshots.

1. Sign in: "Sign in with Django…", DOT's login form as alice, consent; back on the app,
   signed in with alice's claims and profile (screenshot ARTIFACTS_DIR/web-signed-in-NAME.png);
   a resource her scopes open answers; the app's own API, called with her access token (which
   the app takes from its session store, refreshed on use), answers with her name; sign out,
   which goes through DOT's RP-initiated logout and back to the app's signed-out route.
2. Declined consent: DOT asks for the password again (its session ended with the sign-out),
   and the app's error page says the sign-in was cancelled.
3. A tampered pending cookie: after consent, the app refuses the callback.
4. A replayed callback: after a sign-in, the same callback URL again is refused, with the
   pending cookie gone (no pending sign-in) and with it put back (replayed).
With --metrics (the Hummingbird example, which exports Prometheus metrics), GET /metrics is scraped
before and after: the sign-ins, the API's decisions and cache lookups, the token and introspection
requests' timings, and the refused sign-ins by their codes must have moved, and no label value may
be anything but a provider id or a code (Docs/operations.md).
Exits non-zero with the reason on the first failure.
"""
import re
import sys
import time
import urllib.request
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser import Browser

METRICS = "--metrics" in sys.argv
ARGUMENTS = [argument for argument in sys.argv[1:] if argument != "--metrics"]
APP = ARGUMENTS[0].rstrip("/")
ARTIFACTS = Path(ARGUMENTS[1])
NAME = ARGUMENTS[2] if len(ARGUMENTS) > 2 else "web"
ARTIFACTS.mkdir(parents=True, exist_ok=True)
CALLBACK = APP + "/auth/django/callback"


def click_sign_in(browser):
    browser.get(APP + "/")
    session.wait_for((By.ID, "signed-out"), "the signed-out home page")
    browser.find_element(By.PARTIAL_LINK_TEXT, "Sign in with Django").click()


def log_in_if_asked(browser):
    """Logs in at DOT when it asks; returns whether it asked."""
    WebDriverWait(browser, 20).until(lambda b: "127.0.0.1" in b.current_url)
    asked = "/accounts/login/" in browser.current_url
    if asked:
        browser.find_element(By.NAME, "username").send_keys("alice")
        browser.find_element(By.NAME, "password").send_keys("wonderland-test-password")
        browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    session.wait_for((By.CSS_SELECTOR, "input[name=allow]"), "DOT's consent form")
    return asked


def error_code(browser):
    element = session.wait_for((By.ID, "error"), "the error page")
    return element.get_attribute("data-code"), element.text


def pending_cookie(browser):
    """The pending sign-in cookie, read where it is scoped: the callback path (a visit without state clears nothing)."""
    browser.get(CALLBACK)
    error_code(browser)
    pending = [cookie for cookie in browser.get_cookies() if cookie["name"].startswith("oauthflow_flow_")]
    if len(pending) != 1:
        session.fail(f"expected one pending sign-in cookie on the callback path, found {[c['name'] for c in pending]}")
    return pending[0]


SAMPLE = re.compile(r'^([a-z_]+)\{(.*)\} ([0-9.e+-]+)$')
LABEL = re.compile(r'([a-z_]+)="((?:[^"\\]|\\.)*)"')


def scrape():
    """GET /metrics: each OAuthFlow sample as (name, labels as a sorted tuple) -> value; every label value checked."""
    text = urllib.request.urlopen(APP + "/metrics", timeout=10).read().decode()
    samples = {}
    for line in text.splitlines():
        found = SAMPLE.match(line)
        if not found or not found.group(1).startswith("oauthflow_"):
            continue
        labels = tuple(sorted(LABEL.findall(found.group(2))))
        for name, value in labels:
            # Provider ids and codes only (`le` is a histogram bucket's bound): never a token, a subject, a URL or a query.
            if name != "le" and not re.fullmatch(r"[a-z0-9_.-]{1,64}", value):
                session.fail(f"/metrics has a label that is no id or code: {line}")
        samples[(found.group(1), labels)] = float(found.group(3))
    return samples


def moved(before, after, name, **labels):
    """How much the samples of `name` whose labels include `labels` grew between two scrapes."""
    wanted = set(labels.items())
    def total(samples):
        return sum(value for (sample, sample_labels), value in samples.items() if sample == name and wanted <= set(sample_labels))
    return total(after) - total(before)


def expect_moved(before, after, name, **labels):
    if moved(before, after, name, **labels) < 1:
        session.fail(f"/metrics: {name} {labels} did not move")
    print(f"metrics: {name} {labels} +{moved(before, after, name, **labels):g}")


def put_cookie(browser, cookie, value):
    browser.delete_cookie(cookie["name"])
    browser.add_cookie({"name": cookie["name"], "value": value, "path": cookie["path"], "httpOnly": True, "sameSite": "Lax"})


session = Browser(ARTIFACTS, f"browser test ({NAME})", ())
browser = session.driver
started = time.monotonic()
try:
    before = scrape() if METRICS else {}
    # 1. A whole sign-in, the app's API, and a sign-out through the provider.
    click_sign_in(browser)
    log_in_if_asked(browser)
    browser.find_element(By.CSS_SELECTOR, "input[name=allow]").click()
    session.wait_for((By.ID, "signed-in"), "the signed-in page")
    if not browser.current_url.startswith(APP):
        session.fail("the sign-in did not land back on the app")
    claims = browser.find_element(By.ID, "claims").text
    if "alice@example.com" not in claims:
        session.fail(f"alice's email is not among the claims: {claims!r}")
    profile = browser.find_element(By.ID, "profile").text
    if "Alice Liddell" not in profile or "alice@example.com" not in profile:
        session.fail(f"the profile does not show alice: {profile!r}")
    if browser.find_element(By.ID, "name").text != "Alice Liddell":
        session.fail(f"the page names {browser.find_element(By.ID, 'name').text!r}")
    browser.save_screenshot(str(ARTIFACTS / f"web-signed-in-{NAME}.png"))
    print(f"signed in: {browser.find_element(By.ID, 'signed-in').text}")
    browser.find_element(By.XPATH, "//button[starts-with(normalize-space(.), 'Open ')]").click()
    answer = session.wait_for((By.ID, "resource"), "the resource page").text
    if not answer.startswith("HTTP 200") or "alice@example.com" not in answer:
        session.fail(f"the resource did not answer for alice: {answer[:300]!r}")
    browser.get(APP + "/")
    session.wait_for((By.ID, "call-api"), "the API button").click()
    answer = session.wait_for((By.ID, "api-answer"), "the API's answer").text
    if not answer.startswith("HTTP 200") or '"username":"alice"' not in answer.replace(" ", ""):
        session.fail(f"the app's API did not answer for alice: {answer[:300]!r}")
    print(f"API: {answer.splitlines()[-1][:200]}")
    if METRICS:
        after = scrape()
        expect_moved(before, after, "oauthflow_sign_ins_total", provider="django", outcome="success", code="none")
        expect_moved(before, after, "oauthflow_request_duration_seconds_count", provider="django", endpoint="token", status="2xx")
        expect_moved(before, after, "oauthflow_api_decisions_total", provider="django", outcome="accepted", code="none")
        expect_moved(before, after, "oauthflow_api_cache_lookups_total", provider="django", cache="introspection", result="miss")
        expect_moved(before, after, "oauthflow_request_duration_seconds_count", provider="django", endpoint="introspection", status="2xx")
    browser.get(APP + "/")
    [url for _, url in session.requests()]
    session.wait_for((By.ID, "sign-out"), "the sign-out button").click()
    session.wait_for((By.ID, "signed-out"), "the signed-out page after signing out")
    hops = [url for _, url in session.requests()]
    if not any("/o/logout/" in url for url in hops) or not any(url.startswith(APP + "/auth/django/signed-out?") for url in hops):
        session.fail(f"the sign-out did not go through DOT's logout and back: {hops}")
    print("signed out through DOT's end-session endpoint")

    # 2. Declined consent. DOT's session ended with the sign-out: it asks for the password again.
    click_sign_in(browser)
    if not log_in_if_asked(browser):
        session.fail("DOT did not ask for the password: its session outlived the sign-out")
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]:not([name=allow])").click()
    code, text = error_code(browser)
    if code != "denied" or "cancelled" not in text:
        session.fail(f"declined consent gave {code!r}: {text!r}")
    print(f"declined: {text}")

    # 3. A tampered pending cookie.
    click_sign_in(browser)
    log_in_if_asked(browser)
    consent = browser.current_url
    cookie = pending_cookie(browser)
    if not cookie.get("httpOnly") or cookie.get("sameSite") != "Lax" or cookie.get("path") != "/auth/django/callback":
        session.fail(f"the pending cookie's attributes are wrong: {cookie}")
    value = cookie["value"]
    put_cookie(browser, cookie, value[:-6] + ("A" if value[-6] != "A" else "B") + value[-5:])
    browser.get(consent)
    session.wait_for((By.CSS_SELECTOR, "input[name=allow]"), "DOT's consent form again").click()
    code, text = error_code(browser)
    if code != "tampered":
        session.fail(f"a tampered cookie gave {code!r}: {text!r}")
    print(f"tampered: {text}")

    # 4. A replayed callback: the same URL again, without and then with its pending cookie.
    click_sign_in(browser)
    log_in_if_asked(browser)
    consent = browser.current_url
    cookie = pending_cookie(browser)
    browser.get(consent)
    [url for _, url in session.requests()]
    session.wait_for((By.CSS_SELECTOR, "input[name=allow]"), "DOT's consent form again").click()
    session.wait_for((By.ID, "signed-in"), "the signed-in page")
    callbacks = [url for url in [url for _, url in session.requests()] if url.startswith(CALLBACK + "?")]
    if len(callbacks) != 1:
        session.fail(f"expected one callback request, saw {callbacks}")
    browser.get(callbacks[0])
    code, text = error_code(browser)
    if code != "no_pending_sign_in":
        session.fail(f"the callback again, its cookie deleted, gave {code!r}: {text!r}")
    put_cookie(browser, cookie, cookie["value"])
    browser.get(callbacks[0])
    code, text = error_code(browser)
    if code != "replayed":
        session.fail(f"the callback again, with its cookie, gave {code!r}: {text!r}")
    print(f"replayed: {text}")
    if METRICS:
        after = scrape()
        # The engine counts the callbacks it finished, with its own codes (the page says `denied` and `replayed`);
        # the routes count what they refuse before the engine sees it (a tampered cookie).
        expect_moved(before, after, "oauthflow_sign_ins_total", provider="django", outcome="failure", code="access_denied")
        expect_moved(before, after, "oauthflow_sign_ins_total", provider="django", outcome="failure", code="tampered")
        expect_moved(before, after, "oauthflow_sign_ins_total", provider="django", outcome="failure", code="already_completed")
    print(f"browser test ({NAME}) passed in {time.monotonic() - started:.1f} s; screenshot: {ARTIFACTS / f'web-signed-in-{NAME}.png'}")
finally:
    session.quit()
