"""The console in headless Chromium, driven by Selenium as an administrator would use it: sign in,
find the device, compose a push with a deep link, see it delivered, see it opened on the Sends
page. Screenshots of each step go to SHOTS.

Usage: console_browser.py CONSOLE_URL EMAIL PASSWORD TOKEN SHOTS OPEN_COMMAND...
OPEN_COMMAND is run (with the send's id appended) to report the open as the app would."""
import subprocess
import sys

from peer import expect
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support import expected_conditions as shown
from selenium.webdriver.support.ui import WebDriverWait

console, email, password, token, shots = sys.argv[1:6]
open_command = sys.argv[6:]

options = webdriver.ChromeOptions()
for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"]:
    options.add_argument(flag)
browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
wait = WebDriverWait(browser, 20)
step = 0


def shot(name):
    global step
    step += 1
    browser.save_screenshot(f"{shots}/{step:02d}-{name}.png")


def testid(name):
    return wait.until(shown.visibility_of_element_located((By.CSS_SELECTOR, f'[data-testid="{name}"]')))


try:
    browser.get(console)
    testid("login-email").send_keys(email)
    testid("login-password").send_keys("wrong password")
    testid("login-submit").click()
    wait.until(lambda b: "Invalid" in b.find_element(By.ID, "signin-error").text)
    shot("refused")
    testid("login-password").clear()
    testid("login-password").send_keys(password)
    testid("login-submit").click()
    testid("nav-overview")
    shot("overview")

    testid("nav-devices").click()
    wait.until(lambda b: any(token in row.text for row in b.find_elements(By.CSS_SELECTOR, '[data-testid="device-row"]')))
    shot("devices")

    testid("nav-compose").click()
    testid("compose-audience").clear()
    testid("compose-audience").send_keys("all")
    testid("compose-title").send_keys("Hello from the console")
    testid("compose-body").send_keys("Tap to open your inbox")
    testid("compose-link").send_keys("soar:///notifications")
    testid("compose-send").click()
    wait.until(lambda b: "1 delivered" in testid("send-status").text)
    shot("delivered")

    testid("nav-sends").click()
    row = wait.until(lambda b: b.find_element(By.CSS_SELECTOR, '[data-testid="send-row"]'))
    send_prefix = row.find_elements(By.TAG_NAME, "td")[1].text
    expect("0 opened" in row.text, f"not opened yet: {row.text}")
    opened = subprocess.run(open_command, capture_output=True, text=True)
    expect(opened.returncode == 0, f"reporting the open: {opened.stdout} {opened.stderr}")
    wait.until(lambda b: "1 opened" in b.find_element(By.CSS_SELECTOR, '[data-testid="send-row"]').text)
    shot("opened")

    # Keyboard: every control can be reached and is labelled.
    for name in ["nav-overview", "nav-users", "nav-devices", "nav-sends", "nav-compose"]:
        expect(testid(name).get_attribute("href"), f"{name} is a link")
    testid("nav-compose").click()
    for name in ["compose-audience", "compose-title", "compose-body", "compose-link"]:
        field = testid(name)
        labels = browser.find_elements(By.CSS_SELECTOR, f'label[for="{field.get_attribute("id")}"]')
        expect(labels and labels[0].text, f"{name} has a label")
    testid("compose-audience").click()
    browser.switch_to.active_element.send_keys("\t")
    expect(browser.switch_to.active_element.get_attribute("data-testid") == "compose-title", "Tab goes on to the title")
    print("ok", send_prefix)
finally:
    browser.quit()
