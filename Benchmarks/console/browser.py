"""Headless Chromium on the console, for Benchmarks/console/run.
  browser.py URL EMAIL PASSWORD load          the first page's load, all assets, cache off: JSON {bytes, ms} of 5 loads
  browser.py URL EMAIL PASSWORD watch SECONDS  signed in, the Sends page open and live (its realtime channel joined) for SECONDS"""
import json
import signal
import statistics
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

url, email, password, mode = sys.argv[1:5]
# The run script stops a watching browser with SIGTERM: leave through `finally`, so that Chromium
# and chromedriver are quit too instead of left running.
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
options = webdriver.ChromeOptions()
for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"]:
    options.add_argument(flag)
browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
wait = WebDriverWait(browser, 30)
try:
    if mode == "load":
        browser.execute_cdp_cmd("Network.enable", {})
        browser.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        loads, sizes = [], []
        for _ in range(5):
            browser.get(url)
            wait.until(lambda b: b.execute_script("return document.readyState") == "complete")
            timing = browser.execute_script("""
                const nav = performance.getEntriesByType('navigation')[0];
                const resources = performance.getEntriesByType('resource');
                return {ms: nav.loadEventEnd - nav.startTime,
                        bytes: nav.transferSize + resources.reduce((sum, r) => sum + r.transferSize, 0),
                        assets: 1 + resources.length};""")
            loads.append(timing["ms"])
            sizes.append(timing["bytes"])
        print(json.dumps({"ms": statistics.median(loads), "bytes": max(sizes), "assets": timing["assets"]}))
    else:
        browser.get(url)
        wait.until(lambda b: b.find_element(By.CSS_SELECTOR, '[data-testid="login-email"]').is_displayed())
        browser.find_element(By.CSS_SELECTOR, '[data-testid="login-email"]').send_keys(email)
        browser.find_element(By.CSS_SELECTOR, '[data-testid="login-password"]').send_keys(password)
        browser.find_element(By.CSS_SELECTOR, '[data-testid="login-submit"]').click()
        wait.until(lambda b: b.find_element(By.CSS_SELECTOR, '[data-testid="nav-sends"]').is_displayed())
        browser.find_element(By.CSS_SELECTOR, '[data-testid="nav-sends"]').click()
        wait.until(lambda b: "Live" in b.find_element(By.CSS_SELECTOR, '[data-testid="sends-live"]').text)
        print("watching", flush=True)
        time.sleep(float(sys.argv[5]))
        rows = browser.find_elements(By.CSS_SELECTOR, '[data-testid="send-row"]')
        print(json.dumps({"rows": len(rows), "first": rows[0].text if rows else ""}))
finally:
    browser.quit()
