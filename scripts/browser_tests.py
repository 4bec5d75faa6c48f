"""The compendium's web pages in headless Chromium, against a live `oak serve` on loopback.

Run by scripts/browser-tests (which installs Chromium, its driver and Selenium). Each check is a function named
for the scenario it proves; the run stops at the first failure with its name and what was seen.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCREENSHOTS = os.path.join(ROOT, ".build", "browser-screenshots")
KEY = "browser-tests-key-" + os.urandom(8).hex()
# A payload in every field it can reach: it would set window.__pwned, or open an alert, if it ever ran.
ATTACK = "\"'><script>window.__pwned=1</script><img src=x onerror=\"window.__pwned=2\"><svg onload=alert(1)>"
RTL = "\u202ekao \u05d0\u05dc\u05d5\u05df a\u0301\u0301"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self):
        self.work = tempfile.mkdtemp(prefix="oak-browser-")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, HOME=self.work, OAK_API_KEY=KEY)
        self.log = open(os.path.join(self.work, "server.log"), "w")
        self.process = subprocess.Popen(
            [os.environ["OAK_BIN"], "serve", "--host", "127.0.0.1", "--port", str(self.port), "--db", os.path.join(self.work, "oak.db"),
             "--no-rate-limit", "--no-daily-backup", "--backup-dir", os.path.join(self.work, "backups")],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        for _ in range(300):
            try:
                urllib.request.urlopen(self.base + "/health/ready", timeout=2)
                return
            except Exception:
                if self.process.poll() is not None:
                    break
                time.sleep(0.1)
        self.stop()
        raise SystemExit("browser-tests: oak serve did not become ready")

    def api(self, method, path, body):
        request = urllib.request.Request(
            self.base + path, method=method, data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"})
        with urllib.request.urlopen(request) as response:
            return json.loads(response.read())

    def get(self, path):
        with urllib.request.urlopen(self.base + path) as response:
            return json.loads(response.read())

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()
        shutil.rmtree(self.work, ignore_errors=True)


def browser(width, height, phone=False):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", f"--window-size={max(width, 800)},{height}"]:
        options.add_argument(argument)
    if phone:
        # A window cannot be narrower than about 500 px: a phone's screen is emulated, as Chrome's device mode does.
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": width, "height": height, "pixelRatio": 2.0}})
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=shutil.which("chromedriver")), options=options)
    driver.set_page_load_timeout(20)
    return driver


def arrives(driver, fragment):
    """Waits until the browser is on a page whose path (and query) starts with `fragment`, or, for a fragment that is
    not a path (`#main`), whose URL holds it: a form sent by a click or a key press navigates after it returns."""
    def there(d):
        url = urllib.parse.urlsplit(d.current_url)
        local = url.path + ("?" + url.query if url.query else "") + ("#" + url.fragment if url.fragment else "")
        return local.startswith(fragment) if fragment.startswith("/") else fragment in d.current_url
    try:
        WebDriverWait(driver, 10).until(there)
    except Exception:
        raise AssertionError(f"went to {driver.current_url}, not {fragment}")


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def shot(driver, name):
    os.makedirs(SCREENSHOTS, exist_ok=True)
    driver.save_screenshot(os.path.join(SCREENSHOTS, name + ".png"))


def nothing_ran(driver, where):
    check(driver.execute_script("return window.__pwned === undefined"), f"{where}: a script of the content ran")
    try:
        alert = driver.switch_to.alert
        raise AssertionError(f"{where}: an alert opened: {alert.text}")
    except NoAlertPresentException:
        pass


def console_clean(driver, where):
    """No error in the browser's console since the last look: no request refused by the policy, no missing file."""
    errors = [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]
    check(not errors, f"{where}: the console shows {errors}")


def accessible(driver, where):
    """Landmarks, one h1 and headings in order, a label for every field, and the skip link first for the keyboard."""
    for selector in ["header", "nav", "main", "footer"]:
        check(driver.find_elements(By.CSS_SELECTOR, selector), f"{where}: no <{selector}> landmark")
    levels = [int(h.tag_name[1]) for h in driver.find_elements(By.CSS_SELECTOR, "h1, h2, h3, h4, h5, h6")]
    check(levels.count(1) == 1 and levels[0] == 1, f"{where}: headings {levels} do not start with one h1")
    check(all(b - a <= 1 for a, b in zip(levels, levels[1:])), f"{where}: headings {levels} skip a level")
    for field in driver.find_elements(By.CSS_SELECTOR, "input:not([type=hidden]), select, textarea"):
        ident = field.get_attribute("id")
        check(ident and driver.find_elements(By.CSS_SELECTOR, f"label[for='{ident}']"), f"{where}: a field without a label")


def stylesheet_applied(driver, where):
    background = driver.execute_script("return getComputedStyle(document.body).backgroundColor")
    check(background == "rgb(251, 250, 246)", f"{where}: the stylesheet did not load (background {background})")


def test_search_as_a_visitor_and_open_a_species(server, driver):
    driver.get(server.base + "/")
    check(driver.title == "Oak Compendium", f"title {driver.title!r}")
    stylesheet_applied(driver, "/")
    console_clean(driver, "/")
    accessible(driver, "/")
    shot(driver, "desktop-home")
    box = driver.find_element(By.ID, "q")
    box.send_keys("alba")
    box.send_keys(Keys.ENTER)
    arrives(driver, "/search?q=alba")
    check(driver.find_element(By.ID, "found-species").text == "Species", "no species group")
    accessible(driver, "/search")
    shot(driver, "desktop-search")
    driver.find_element(By.LINK_TEXT, "Quercus alba").click()
    check(driver.find_element(By.TAG_NAME, "h1").text.startswith("Quercus alba"), "the species page did not open")


def test_search_as_you_type(server, driver):
    driver.get(server.base + "/")
    driver.find_element(By.ID, "q").send_keys("cerr")
    try:
        WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#suggestions a"))
    except Exception:
        raise AssertionError("no suggestions appeared while typing")
    names = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "#suggestions a")]
    check("Quercus cerris" in names, f"suggestions {names}")
    shot(driver, "desktop-suggestions")
    console_clean(driver, "search as you type")
    driver.find_element(By.LINK_TEXT, "Quercus cerris").click()
    arrives(driver, "/species/cerris")
    # Hostile names are suggested as text.
    driver.get(server.base + "/")
    driver.find_element(By.ID, "q").send_keys("Evil")
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#suggestions a"))
    check(any(a.text.startswith("Evil \"'><script>") for a in driver.find_elements(By.CSS_SELECTOR, "#suggestions a")), "the hostile source is not suggested as text")
    nothing_ran(driver, "suggestions")


def test_navigate_the_taxonomy(server, driver):
    driver.get(server.base + "/taxonomy")
    accessible(driver, "/taxonomy")
    shot(driver, "desktop-taxonomy")
    driver.find_element(By.CSS_SELECTOR, "a[href='/taxa/subgenus/Cerris']").click()
    check(driver.find_element(By.TAG_NAME, "h1").text.lower().startswith("subgenus cerris"), "the subgenus page did not open")
    driver.find_element(By.LINK_TEXT, "Quercus cerris").click()
    check("Quercus cerris" in driver.title, f"title {driver.title!r}")


def test_open_a_hybrids_parents(server, driver):
    driver.get(server.base + "/species/%C3%97%20bebbiana")
    check(driver.find_element(By.TAG_NAME, "h1").text.startswith("Quercus × bebbiana"), "the hybrid did not open")
    driver.find_element(By.LINK_TEXT, "Quercus macrocarpa").click()
    check(driver.title.startswith("Quercus macrocarpa"), f"title {driver.title!r}")
    driver.back()
    driver.find_element(By.LINK_TEXT, "Quercus alba").click()
    check(driver.title.startswith("Quercus alba"), f"title {driver.title!r}")


def test_descriptions_side_by_side_with_markdown(server, driver):
    driver.get(server.base + "/species/alba")
    accessible(driver, "/species/alba")
    shot(driver, "desktop-species")
    columns = driver.find_elements(By.CSS_SELECTOR, ".columns .source")
    check(len(columns) == 2, f"{len(columns)} description columns")
    check(columns[0].location["y"] == columns[1].location["y"], "the descriptions are not side by side on a desktop")
    check(driver.find_elements(By.CSS_SELECTOR, ".source strong"), "markdown was not rendered")
    console_clean(driver, "/species/alba")


def test_hostile_content_runs_nothing(server, driver):
    for path in ["/species/hostilis", f"/sources/{server.hostile_source}", "/sources", "/taxonomy", "/taxa/section/Hostilae", "/search?q=hostilis"]:
        driver.get(server.base + path)
        nothing_ran(driver, path)
        check(driver.find_elements(By.CSS_SELECTOR, "footer.site"), f"{path}: the page is not whole")
        stylesheet_applied(driver, path)
        console_clean(driver, path)
    driver.get(server.base + "/species/hostilis")
    check(ATTACK.split(">")[0] in driver.find_element(By.CSS_SELECTOR, "h1").text + driver.page_source.replace("&quot;", "\""),
          "the hostile author is not shown as text")
    for link in driver.find_elements(By.CSS_SELECTOR, "a"):
        href = (link.get_attribute("href") or "").lower()
        check(not href.startswith("javascript:") and not href.startswith("data:"), f"a link to {href}")
    shot(driver, "desktop-hostile")


def test_keyboard_only(server, driver):
    driver.get(server.base + "/species/alba")
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.TAB)
    active = driver.switch_to.active_element
    check(active.text == "Skip to content", f"the first Tab reached {active.text!r}")
    active.send_keys(Keys.ENTER)
    arrives(driver, "#main")
    driver.get(server.base + "/")
    for _ in range(8):
        driver.switch_to.active_element.send_keys(Keys.TAB)
        if driver.switch_to.active_element.get_attribute("id") == "q":
            break
    check(driver.switch_to.active_element.get_attribute("id") == "q", "the search box is not reachable by keyboard")
    driver.switch_to.active_element.send_keys("cerris", Keys.ENTER)
    arrives(driver, "/search?q=cerris")


def test_an_open_page_updates_live(server, driver):
    driver.get(server.base + "/species/cerris")
    driver.execute_script("window.__loadedOnce = true")
    server.api("POST", "/api/v1/notes", {"scientificName": "cerris", "fields": {"bark": "Corky, written while the page was open."}})
    try:
        WebDriverWait(driver, 5).until(lambda d: "Corky, written while the page was open." in d.find_element(By.TAG_NAME, "main").text)
    except Exception:
        raise AssertionError("the open page did not show the new note")
    check(driver.execute_script("return window.__loadedOnce === true"), "the page was loaded again rather than updated in place")
    check(driver.find_elements(By.CSS_SELECTOR, "[aria-live=polite]"), "the update is not announced")
    nothing_ran(driver, "the updated page")
    console_clean(driver, "the updated page")


def signed_in(driver, server, next_path):
    """Signs in through the pages: the footer's link, the key typed, back on the page it left."""
    driver.get(server.base + next_path)
    driver.find_element(By.LINK_TEXT, "Sign in to edit").click()
    arrives(driver, "/sign-in?next=")
    accessible(driver, "/sign-in")
    driver.find_element(By.ID, "key").send_keys(KEY, Keys.ENTER)
    arrives(driver, next_path)
    check("Signed in as owner" in driver.find_element(By.TAG_NAME, "header").text, "the header does not say who is signed in")


def save_form(driver, fields):
    """Types into a form's fields (replacing their text) and sends it with its button."""
    for name, text in fields.items():
        field = driver.find_element(By.NAME, name)
        field.clear()
        field.send_keys(text)
    driver.find_element(By.CSS_SELECTOR, "form.edit button[type=submit]").click()


def test_sign_in_and_edit_a_species(server, driver):
    driver.get(server.base + "/species/alba")
    check(not driver.find_elements(By.PARTIAL_LINK_TEXT, "Edit"), "edit links shown to a visitor")
    signed_in(driver, server, "/species/alba")
    cookie = driver.get_cookie("oak_session")
    check(cookie and cookie["httpOnly"] and cookie.get("sameSite") == "Strict", f"session cookie {cookie}")
    check(KEY not in cookie["value"], "the key is in the cookie")
    check("oak_session" not in driver.execute_script("return document.cookie"), "a script can read the session cookie")
    driver.find_element(By.LINK_TEXT, "Edit this species").click()
    arrives(driver, "/edit/species/alba")
    accessible(driver, "/edit/species/alba")
    console_clean(driver, "/edit/species/alba")
    shot(driver, "desktop-edit-species")
    save_form(driver, {"author": "L. (edited in a browser)", "synonyms": "Quercus candida"})
    arrives(driver, "/species/alba")
    check("L. (edited in a browser)" in driver.find_element(By.TAG_NAME, "h1").text, "the species page does not show the edit")
    check("Quercus candida" in driver.find_element(By.CSS_SELECTOR, "dl.facts").text, "the synonym is not shown")
    # A refused value is shown beside its field, and the text typed stays.
    driver.find_element(By.LINK_TEXT, "Edit this species").click()
    Select(driver.find_element(By.NAME, "subgenus")).select_by_value("Cerris")
    save_form(driver, {"author": "a" * 1001, "conservation_status": "Kept text"})
    WebDriverWait(driver, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".field.invalid .error"))
    error = driver.find_element(By.CSS_SELECTOR, ".field.invalid .error")
    check(error.text == "must be 0 to 1000 characters long", f"the error beside the author is {error.text!r}")
    check(error.get_attribute("id") == driver.find_element(By.NAME, "author").get_attribute("aria-errormessage"), "the error is not tied to its field")
    check(driver.find_element(By.NAME, "conservation_status").get_attribute("value") == "Kept text", "the typed text was lost")
    check(Select(driver.find_element(By.NAME, "subgenus")).first_selected_option.text == "Cerris", "the chosen subgenus was lost")
    check(server.get("/api/v1/species/alba")["subgenus"] == "Quercus", "a refused form changed the species")
    driver.get_log("browser")  # The refused form's 400, in the console, was expected.


def test_hostile_text_typed_into_my_notes_runs_nothing(server, driver):
    driver.get(server.base + "/species/alba")
    driver.find_element(By.LINK_TEXT, "Write my notes").click()
    arrives(driver, "/edit/species/alba/notes")
    accessible(driver, "/edit/species/alba/notes")
    save_form(driver, {"leaf": "Lobes *rounded*.", "fieldNotes": ATTACK})
    arrives(driver, "/species/alba")
    nothing_ran(driver, "/species/alba with notes")
    console_clean(driver, "/species/alba with notes")
    check(driver.find_elements(By.CSS_SELECTOR, ".source em"), "the note's markdown was not rendered")
    driver.find_element(By.LINK_TEXT, "Edit my notes").click()
    check(driver.find_element(By.NAME, "fieldNotes").get_attribute("value") == ATTACK, "the note's text did not come back as typed")
    nothing_ran(driver, "the notes form")


def test_a_conflict_between_two_sessions(server, driver):
    other = browser(1280, 900)
    try:
        signed_in(other, server, "/species/alba")
        driver.get(server.base + "/edit/species/alba")
        other.get(server.base + "/edit/species/alba")
        save_form(driver, {"author": "Saved first"})
        arrives(driver, "/species/alba")
        save_form(other, {"author": "Saved second", "conservation_status": "LC"})
        try:
            WebDriverWait(other, 10).until(lambda d: d.find_elements(By.CSS_SELECTOR, ".notice.conflict"))
        except Exception:
            raise AssertionError("no conflict page")
        check("Changed since you opened this form" in other.find_element(By.CSS_SELECTOR, ".notice.conflict").text, "the conflict is not explained")
        check(other.find_element(By.NAME, "author").get_attribute("value") == "Saved second", "the typed text was lost")
        check("Saved first" in other.find_element(By.CSS_SELECTOR, ".saved").text, "the conflict page does not show what is saved")
        accessible(other, "the conflict page")
        shot(other, "desktop-conflict")
        check(server.get("/api/v1/species/alba")["author"] == "Saved first", "the second session overwrote the first")
        other.get_log("browser")  # The conflict's 409, in the console, was expected.
        other.find_element(By.CSS_SELECTOR, "form.edit button[type=submit]").click()
        arrives(other, "/species/alba")
        check("Saved second" in other.find_element(By.TAG_NAME, "h1").text, "saving again did not overwrite")
    finally:
        other.quit()


def test_sign_out(server, driver):
    driver.get(server.base + "/species/alba")
    driver.find_element(By.CSS_SELECTOR, "form.session button").click()
    try:
        WebDriverWait(driver, 10).until(lambda d: d.current_url == server.base + "/")
    except Exception:
        raise AssertionError(f"signing out went to {driver.current_url}, not the landing page")
    check(driver.get_cookie("oak_session") is None, "the session cookie is still there")
    driver.get(server.base + "/species/alba")
    check(not driver.find_elements(By.PARTIAL_LINK_TEXT, "Edit"), "edit links after signing out")
    driver.get(server.base + "/edit/species/alba")
    arrives(driver, "/sign-in?next=")


def test_phone_sized_viewport(server, phone):
    for path, name in [("/", "home"), ("/species/alba", "species"), ("/taxonomy", "taxonomy"), ("/species/hostilis", "hostile")]:
        phone.get(server.base + path)
        width = phone.execute_script("return document.documentElement.clientWidth")
        scroll = phone.execute_script("return document.documentElement.scrollWidth")
        check(width <= 360 and scroll <= width, f"{path}: {scroll} px wide in a {width} px window")
        shot(phone, "phone-" + name)
    phone.get(server.base + "/species/alba")
    columns = phone.find_elements(By.CSS_SELECTOR, ".columns .source")
    check(columns[0].location["y"] < columns[1].location["y"], "the descriptions are not stacked on a phone")


def seed(server):
    source = server.api("POST", "/api/v1/sources", {
        "source_type": "website", "name": "Oaks of the East", "url": "https://oaks.example/east", "license": "CC BY 4.0"})
    server.api("POST", "/api/v1/species/alba/sources", {"source_id": source["id"], "leaves": "Deeply **lobed**.", "bark": "Pale *grey*."})
    other = server.api("POST", "/api/v1/sources", {"source_type": "book", "name": "A Field Guide"})
    server.api("POST", "/api/v1/species/alba/sources", {"source_id": other["id"], "leaves": "Lobes rounded."})
    hostile = server.api("POST", "/api/v1/sources", {
        "source_type": "book", "name": "Evil " + ATTACK + " " + RTL, "url": "javascript:window.__pwned=3", "license": ATTACK,
        "license_url": "javascript:window.__pwned=4", "author": ATTACK, "description": "[x](javascript:window.__pwned=5) " + ATTACK})
    server.api("POST", "/api/v1/species", {
        "scientific_name": "hostilis", "author": (ATTACK + "q" * 10000)[:1000], "synonyms": [ATTACK, RTL],
        "external_links": [{"name": ATTACK, "url": "javascript:window.__pwned=6"}]})
    server.api("POST", "/api/v1/species/hostilis/sources", {
        "source_id": hostile["id"], "local_names": [ATTACK], "miscellaneous": "q" * 10000, "leaves": "[y](javascript:window.__pwned=7) " + ATTACK,
        "bark": "<script>window.__pwned=8</script>", "range": "```\n</code></pre><script>window.__pwned=9</script>\n```"})
    server.api("POST", "/api/v1/taxa", {
        "name": "Hostilae", "level": "section", "parent": "Quercus", "author": ATTACK, "notes": "[n](javascript:window.__pwned=10) " + ATTACK})
    server.hostile_source = hostile["id"]


def main():
    server = Server()
    desktop = phone = None
    failures = []
    try:
        seed(server)
        desktop = browser(1280, 900)
        phone = browser(360, 740, phone=True)
        tests = [(name, function) for name, function in globals().items() if name.startswith("test_")]
        for name, function in tests:
            driver = phone if "phone" in name else desktop
            try:
                function(server, driver)
                print(f"✔ {name}")
            except Exception as error:
                failures.append(name)
                print(f"✘ {name}: {error}")
                traceback.print_exc(limit=2)
        print(f"browser-tests: {len(tests) - len(failures)} of {len(tests)} passed; screenshots in {SCREENSHOTS}")
    finally:
        for driver in (desktop, phone):
            if driver:
                driver.quit()
        server.stop()
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
