"""What the browser tests share: headless Chromium, waiting for a page, the requests it made, failing with a screenshot."""
import json
import sys
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support import expected_conditions as conditions
from selenium.webdriver.support.ui import WebDriverWait


class Browser:
    """Debian's headless Chromium through chromedriver; `what` names the test in failures and screenshots."""

    def __init__(self, artifacts, what, extra_arguments=()):
        self.artifacts = Path(artifacts)
        self.artifacts.mkdir(parents=True, exist_ok=True)
        self.what = what
        options = webdriver.ChromeOptions()
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1000,1300",
                         "--no-first-run", "--disable-extensions", "--password-store=basic", *extra_arguments):
            options.add_argument(argument)
        options.binary_location = "/usr/bin/chromium"
        options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)

    def fail(self, message):
        shot = self.artifacts / f"{self.what.replace(' ', '-').replace('(', '').replace(')', '')}-failure.png"
        self.driver.save_screenshot(str(shot))
        sys.exit(f"{self.what}: {message}\n  at {self.driver.current_url}\n  screenshot: {shot}\n  page: {self.driver.page_source[:2000]}")

    def wait_for(self, locator, what):
        try:
            return WebDriverWait(self.driver, 20).until(conditions.presence_of_element_located(locator))
        except TimeoutException:
            self.fail(f"timed out waiting for {what}")

    def requests(self):
        """(method, URL) of every request since the last call, redirects included (Chromium's performance log)."""
        seen = []
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.requestWillBeSent":
                request = message["params"]["request"]
                seen.append((request["method"], request["url"]))
        return seen

    def quit(self):
        self.driver.quit()
