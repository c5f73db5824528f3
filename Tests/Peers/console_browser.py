"""The console in headless Chromium, driven by Selenium: an administrator signs in; a second tab,
the simulated device, signs an app user in, allows notifications and registers its token; the
console lists the device, composes a push with a deep link and sees it delivered; the device tab
shows the banner, a tap shows the route, and the console's Sends page shows the open.
Screenshots of each step go to SHOTS.

Usage: console_browser.py CONSOLE_URL ADMIN_EMAIL ADMIN_PASSWORD USER_EMAIL USER_PASSWORD SHOTS"""
import sys

from peer import expect
from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as shown
from selenium.webdriver.support.ui import WebDriverWait

console, admin, admin_password, user, user_password, shots = sys.argv[1:7]

options = webdriver.ChromeOptions()
for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"]:
    options.add_argument(flag)
browser = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
# The Sends page redraws every second: an element found may be replaced before it is read.
wait = WebDriverWait(browser, 20, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException))
step = 0


def shot(name):
    global step
    step += 1
    browser.save_screenshot(f"{shots}/{step:02d}-{name}.png")


def testid(name):
    return wait.until(shown.visibility_of_element_located((By.CSS_SELECTOR, f'[data-testid="{name}"]')))


def click(selector):
    """Clicks the element once it is there; a page that redraws itself (Sends, every second) may
    replace it between the look and the click, so it looks again."""
    def attempt(b):
        try:
            b.find_element(By.CSS_SELECTOR, selector).click()
            return True
        except Exception:
            return False
    wait.until(attempt)


def press(key):
    ActionChains(browser).send_keys(key).perform()


# Every control a pointer could use, as the page shows it now, each named by what stays the
# same when a page redraws it.
NAME = "(e) => [e.tagName, e.id, e.dataset.testid, e.dataset.sendId, e.getAttribute('href'), e.textContent.trim().slice(0, 40)].join('|')"
CONTROLS = f"""return [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')]
    .filter((e) => !e.disabled && e.tabIndex >= 0 && e.getClientRects().length > 0).map({NAME})"""
FOCUSED = f"""const e = document.activeElement, s = getComputedStyle(e);
    return [e === document.body ? '' : ({NAME})(e), s.outlineStyle !== 'none' && s.outlineWidth !== '0px']"""


def from_the_top(top):
    """Tab starts again from the top: a click on the page's text there (nothing focusable)."""
    ActionChains(browser).move_to_element(browser.find_element(By.CSS_SELECTOR, top)).click().perform()


def keyboard_walk(where, top="header strong"):
    """Tab from the top of the page reaches every control, each showing a focus ring; returns
    the controls' names in the order Tab reached them."""
    expected = browser.execute_script(CONTROLS)
    from_the_top(top)
    reached = []
    for _ in range(len(expected) + 5):
        press(Keys.TAB)
        name, ring = browser.execute_script(FOCUSED)
        if reached and name == reached[0]:
            break
        if not name:
            continue
        expect(ring, f"{where}: a focus ring on {name}")
        reached.append(name)
    missed = [name for name in expected if name not in reached]
    expect(not missed, f"{where}: Tab never reaches {missed}")
    return reached


def keyboard_to(nav):
    """Opens a page from the menu with the keyboard alone: Tab to its link, Enter."""
    from_the_top("header strong")
    for _ in range(20):
        press(Keys.TAB)
        if browser.switch_to.active_element.get_attribute("data-testid") == nav:
            press(Keys.ENTER)
            wait.until(lambda b: b.find_element(By.CSS_SELECTOR, f'[data-testid="{nav}"]').get_attribute("aria-current") == "page")
            wait.until(lambda b: "Loading" not in b.find_element(By.ID, "page").text)
            return
    expect(False, f"Tab reaches the menu's {nav}")


try:
    # The administrator's tab.
    browser.get(console)
    console_tab = browser.current_window_handle
    testid("login-email").send_keys(admin)
    testid("login-password").send_keys("wrong password")
    testid("login-submit").click()
    wait.until(lambda b: "Invalid" in b.find_element(By.ID, "signin-error").text)
    shot("refused")
    testid("login-password").clear()
    testid("login-password").send_keys(admin_password + Keys.ENTER)
    testid("nav-overview")
    shot("overview")

    # The device's tab: sign in, deny first (the Settings state), then allow.
    browser.switch_to.new_window("tab")
    device_tab = browser.current_window_handle
    browser.get(console.rstrip("/") + "/device")
    testid("device-email").send_keys(user)
    testid("device-password").send_keys(user_password)
    testid("device-signin").click()
    testid("device-deny").click()
    wait.until(lambda b: "Open Settings" in b.find_element(By.ID, "denied").text)
    shot("device-denied")
    testid("device-settings").click()
    testid("device-allow").click()
    token = wait.until(lambda b: testid("device-token").text)
    expect(len(token) == 64, f"a 32-byte token, hex: {token}")
    shot("device-registered")

    # The console lists it and sends to it.
    browser.switch_to.window(console_tab)
    testid("nav-devices").click()
    wait.until(lambda b: any(token in row.text for row in b.find_elements(By.CSS_SELECTOR, '[data-testid="device-row"]')))
    shot("devices")
    testid("nav-compose").click()
    testid("compose-audience").clear()
    testid("compose-audience").send_keys(user)
    testid("compose-title").send_keys("New drop")
    testid("compose-body").send_keys("From a brand you follow")
    testid("compose-link").send_keys("soar:///brands/acme")
    wait.until(lambda b: "a tap opens brandHub" in b.find_element(By.ID, "compose-size").text)
    expect("valid:" in browser.find_element(By.ID, "compose-size").text, "the payload is checked as it is typed")
    testid("compose-send").click()
    wait.until(lambda b: "1 delivered" in testid("send-status").text)
    shot("delivered")

    # The device shows it, and a tap opens its route.
    browser.switch_to.window(device_tab)
    banner = testid("banner")
    expect("New drop" in banner.text and "From a brand you follow" in banner.text, f"the banner: {banner.text}")
    shot("device-banner")
    banner.click()
    route = wait.until(lambda b: testid("route").text)
    expect(route.startswith("brandHub") and "/brands/acme" in route, f"the route: {route}")
    shot("device-route")

    # The console sees the open.
    browser.switch_to.window(console_tab)
    testid("nav-sends").click()
    wait.until(lambda b: "1 opened" in b.find_element(By.CSS_SELECTOR, '[data-testid="send-row"]').text)
    shot("opened")

    # The other pages: a user's detail, the data, the mailbox, storage.
    page = lambda b: b.find_element(By.ID, "page").text
    testid("nav-users").click()
    wait.until(lambda b: user in page(b))
    wait.until(lambda b: b.find_elements(By.XPATH, f'//button[text()="{user}"]'))
    browser.find_element(By.XPATH, f'//button[text()="{user}"]').click()
    wait.until(lambda b: "Sign out everywhere" in page(b) and token[:16] in page(b))
    shot("user")
    testid("nav-data").click()
    wait.until(lambda b: "Schema" in page(b) and "Rows" in page(b))
    shot("data")
    testid("nav-mailbox").click()
    wait.until(lambda b: "Mailbox" in page(b))
    testid("nav-storage").click()
    wait.until(lambda b: "avatars" in page(b))
    shot("storage")
    testid("nav-emulator").click()
    wait.until(lambda b: "Deliveries" in page(b) and "New drop" in page(b))
    shot("emulator")
    testid("nav-sends").click()
    click('[data-testid="send-row"] button')
    wait.until(lambda b: "Failures by Apple's reason" in page(b) and "delivered" in page(b))
    shot("send-detail")
    # The Overview's chart is drawn: the send's delivered bar has a size on the page.
    testid("nav-overview").click()
    chart = testid("overview-chart")
    expect(chart.size["width"] > 0 and chart.size["height"] > 0, f"the chart has a size: {chart.size}")
    bars = [bar for bar in chart.find_elements(By.CSS_SELECTOR, "rect") if bar.size["height"] > 0]
    expect(bars, "the chart draws the delivered send")
    shot("overview-chart")

    # Every page's controls are labelled or named.
    for nav in ["nav-overview", "nav-users", "nav-devices", "nav-sends", "nav-compose", "nav-data", "nav-mailbox", "nav-storage", "nav-emulator"]:
        testid(nav).click()
        wait.until(lambda b: "Loading" not in page(b))
        for field in browser.find_elements(By.CSS_SELECTOR, "#page input, #page select"):
            labels = browser.find_elements(By.CSS_SELECTOR, f'label[for="{field.get_attribute("id")}"]')
            expect(field.get_attribute("id") and labels, f"{nav}: an unlabelled field")
        for button in browser.find_elements(By.CSS_SELECTOR, "#page button"):
            expect(button.text.strip(), f"{nav}: a button without a name")

    # Keyboard alone: every page opened from the menu with Tab and Enter, the focus then in the
    # page, and Tab reaching each of its controls with a visible ring.
    for nav in ["nav-overview", "nav-users", "nav-devices", "nav-sends", "nav-compose", "nav-data", "nav-mailbox", "nav-storage", "nav-emulator"]:
        keyboard_to(nav)
        expect(browser.switch_to.active_element.get_attribute("id") == "page", f"{nav}: the focus moves into the page")
        if nav == "nav-sends":
            wait.until(lambda b: "Live" in b.find_element(By.CSS_SELECTOR, '[data-testid="sends-live"]').text)
            testid("send-row")
        keyboard_walk(nav)
    shot("keyboard")
    keyboard_to("nav-compose")
    fields = ["compose-audience", "compose-title", "compose-body", "compose-link", "compose-send"]
    order = [name.split("|")[2] for name in keyboard_walk("compose") if name.split("|")[2] in fields]
    expect(order == fields, f"Compose's Tab order: {order}")
    keyboard_to("nav-sends")
    # The page says so once its channel is joined.
    wait.until(lambda b: "Live" in b.find_element(By.CSS_SELECTOR, '[data-testid="sends-live"]').text)
    browser.switch_to.window(device_tab)
    keyboard_walk("device", top=".status-bar")
    browser.switch_to.window(console_tab)

    # Sign-out on the device removes its token.
    browser.switch_to.window(device_tab)
    testid("device-signout").click()
    testid("device-email")
    browser.switch_to.window(console_tab)
    testid("nav-devices").click()
    wait.until(lambda b: not any(token in row.text for row in b.find_elements(By.CSS_SELECTOR, '[data-testid="device-row"]')))
    print("ok")
finally:
    browser.quit()
