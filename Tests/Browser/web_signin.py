#!/usr/bin/env python3
"""Signs in to the web example (Examples/WebSignIn) in a real, headless Chromium.

Usage: python web_signin.py APP_URL ARTIFACTS_DIR

The app is served as http://localhost:PORT and Django OAuth Toolkit as http://127.0.0.1:PORT:
two sites, so the pending sign-in cookie crosses sites on the way back from the provider as
it does in production (SameSite=Lax must let a top-level GET redirect carry it).

1. Sign in: "Sign in with Django…", DOT's login form as alice, consent; back on the app,
   signed in with alice's claims; a resource her scopes open answers; a screenshot of the
   signed-in page goes to ARTIFACTS_DIR/web-signed-in.png; sign out.
2. Declined consent: the app's error page says the sign-in was cancelled.
3. A tampered pending cookie: after consent, the app refuses the callback.
Exits non-zero with the reason on the first failure.
"""
import sys
import time
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait

APP = sys.argv[1].rstrip("/")
ARTIFACTS = Path(sys.argv[2])
ARTIFACTS.mkdir(parents=True, exist_ok=True)


def fail(browser, message):
    shot = ARTIFACTS / "web-failure.png"
    browser.save_screenshot(str(shot))
    sys.exit(f"browser test: {message}\n  at {browser.current_url}\n  screenshot: {shot}\n  page: {browser.page_source[:2000]}")


def wait_for(browser, locator, what):
    try:
        return WebDriverWait(browser, 20).until(conditions.presence_of_element_located(locator))
    except TimeoutException:
        fail(browser, f"timed out waiting for {what}")


def click_sign_in(browser):
    browser.get(APP + "/")
    wait_for(browser, (By.ID, "signed-out"), "the signed-out home page")
    link = browser.find_element(By.PARTIAL_LINK_TEXT, "Sign in with Django")
    link.click()


def log_in_if_asked(browser):
    WebDriverWait(browser, 20).until(lambda b: "127.0.0.1" in b.current_url)
    if "/accounts/login/" in browser.current_url:
        browser.find_element(By.NAME, "username").send_keys("alice")
        browser.find_element(By.NAME, "password").send_keys("wonderland-test-password")
        browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(browser, (By.CSS_SELECTOR, "input[name=allow]"), "DOT's consent form")


def error_code(browser):
    element = wait_for(browser, (By.ID, "error"), "the error page")
    return element.get_attribute("data-code"), element.text


options = webdriver.ChromeOptions()
for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1000,1300",
                 "--no-first-run", "--disable-extensions", "--password-store=basic"):
    options.add_argument(argument)
options.binary_location = "/usr/bin/chromium"
browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
started = time.monotonic()
try:
    # 1. A whole sign-in.
    click_sign_in(browser)
    log_in_if_asked(browser)
    browser.find_element(By.CSS_SELECTOR, "input[name=allow]").click()
    wait_for(browser, (By.ID, "signed-in"), "the signed-in page")
    if not browser.current_url.startswith(APP):
        fail(browser, "the sign-in did not land back on the app")
    claims = browser.find_element(By.ID, "claims").text
    if "alice@example.com" not in claims:
        fail(browser, f"alice's email is not among the claims: {claims!r}")
    profile = browser.find_element(By.ID, "profile").text
    if "Alice Liddell" not in profile or "alice@example.com" not in profile:
        fail(browser, f"the profile does not show alice: {profile!r}")
    browser.save_screenshot(str(ARTIFACTS / "web-signed-in.png"))
    print(f"signed in: {browser.find_element(By.ID, 'signed-in').text}")
    browser.find_element(By.XPATH, "//button[starts-with(normalize-space(.), 'Open ')]").click()
    answer = wait_for(browser, (By.ID, "resource"), "the resource page").text
    if not answer.startswith("HTTP 200") or "alice@example.com" not in answer:
        fail(browser, f"the resource did not answer for alice: {answer[:300]!r}")
    browser.get(APP + "/")
    wait_for(browser, (By.ID, "sign-out"), "the sign-out button").click()
    wait_for(browser, (By.ID, "signed-out"), "the signed-out page after signing out")

    # 2. Declined consent (DOT still knows alice: its consent form comes straight away).
    click_sign_in(browser)
    log_in_if_asked(browser)
    browser.find_element(By.CSS_SELECTOR, "input[type=submit]:not([name=allow])").click()
    code, text = error_code(browser)
    if code != "denied" or "cancelled" not in text:
        fail(browser, f"declined consent gave {code!r}: {text!r}")
    print(f"declined: {text}")

    # 3. A tampered pending cookie. The cookie is scoped to the callback path, so look at it there.
    click_sign_in(browser)
    log_in_if_asked(browser)
    consent = browser.current_url
    browser.get(APP + "/auth/django/callback")  # no state: refused, and nothing is cleared
    error_code(browser)
    pending = [cookie for cookie in browser.get_cookies() if cookie["name"].startswith("oauthflow_flow_")]
    if len(pending) != 1:
        fail(browser, f"expected one pending sign-in cookie on the callback path, found {[c['name'] for c in pending]}")
    cookie = pending[0]
    if not cookie.get("httpOnly") or cookie.get("sameSite") != "Lax" or cookie.get("path") != "/auth/django/callback":
        fail(browser, f"the pending cookie's attributes are wrong: {cookie}")
    value = cookie["value"]
    flipped = value[:-6] + ("A" if value[-6] != "A" else "B") + value[-5:]
    browser.delete_cookie(cookie["name"])
    browser.add_cookie({"name": cookie["name"], "value": flipped, "path": cookie["path"], "httpOnly": True, "sameSite": "Lax"})
    browser.get(consent)
    wait_for(browser, (By.CSS_SELECTOR, "input[name=allow]"), "DOT's consent form again").click()
    code, text = error_code(browser)
    if code != "tampered":
        fail(browser, f"a tampered cookie gave {code!r}: {text!r}")
    print(f"tampered: {text}")
    print(f"browser test passed in {time.monotonic() - started:.1f} s; screenshot: {ARTIFACTS / 'web-signed-in.png'}")
finally:
    browser.quit()
