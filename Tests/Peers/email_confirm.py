"""Confirmation at sign-up, /resend and email change against a running `soar serve`, through the
PyPI supabase client, reading the development mailbox.

Usage: email_confirm.py URL ANON_KEY SERVICE_ROLE_KEY required|off
With `required` the server runs with --email-confirm required and a confirmation template whose
subject is "Welcome, {{ .Email }}". Prints "ok" when every step behaves as GoTrue; otherwise the
failed step, and exits 1.
"""
import re
import sys
import uuid
from urllib.parse import parse_qs, urlparse

import httpx
from supabase import ClientOptions, create_client
from supabase_auth.errors import AuthApiError
from peer import expect

url, anon, service, mode = sys.argv[1:5]
service_headers = {"apikey": service, "authorization": f"Bearer {service}"}


def mails(to):
    everything = httpx.get(f"{url}/auth/v1/mailbox", headers=service_headers).json()
    return [m for m in everything if m["to"] == to]


def last_code(to):
    mine = mails(to)
    expect(mine, f"a mail to {to}")
    return re.search(r"\b(\d{6})\b", mine[-1]["text"]).group(1), mine[-1]


def refused(step, code):
    try:
        step()
        expect(False, f"refused with {code}")
    except AuthApiError as error:
        expect(error.code == code, f"{code}: got {error.code} {error}")


def fresh(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}@example.com"


settings = httpx.get(f"{url}/auth/v1/settings", headers={"apikey": anon}).json()
expect(settings["mailer_autoconfirm"] == (mode == "off"), f"settings: {settings}")

if mode == "required":
    # Sign-up answers the user, no session; the password does not sign in until the mail is used.
    email = fresh("confirm")
    client = create_client(url, anon, options=ClientOptions(flow_type="implicit"))
    made = client.auth.sign_up({"email": email, "password": "a-password", "options": {"data": {"name": "Ada <3"}}})
    expect(made.session is None and made.user.email == email and made.user.email_confirmed_at is None, f"sign-up: {made}")
    refused(lambda: client.auth.sign_in_with_password({"email": email, "password": "a-password"}), "email_not_confirmed")
    first, mail = last_code(email)
    expect(mail["subject"] == f"Welcome, {email}", f"the subject template: {mail['subject']}")
    expect("Hello Ada &lt;3" in (mail.get("html") or "") and "/auth/v1/verify?token=" in mail["html"], f"the HTML template: {mail.get('html')}")

    # /resend: a new code replaces the first.
    client.auth.resend({"type": "signup", "email": email})
    second, _ = last_code(email)
    expect(len(mails(email)) == 2, "resend mails again")
    if first != second:
        refused(lambda: client.auth.verify_otp({"email": email, "token": first, "type": "signup"}), "otp_expired")
    confirmed = client.auth.verify_otp({"email": email, "token": second, "type": "signup"})
    expect(confirmed.session is not None and confirmed.user.email_confirmed_at, f"confirmed: {confirmed}")
    signed_in = create_client(url, anon).auth.sign_in_with_password({"email": email, "password": "a-password"})
    expect(signed_in.session is not None, "the password signs in once confirmed")

    # A confirmed address signed up again: a user that is not the owner, no session, no mail.
    again = create_client(url, anon).auth.sign_up({"email": email, "password": "another-password"})
    expect(again.session is None and again.user.id != confirmed.user.id, f"no enumeration: {again}")
    expect(len(mails(email)) == 2, "the owner is not mailed")
    # Resend to a confirmed address or an unknown one: answered the same, nothing mailed.
    client.auth.resend({"type": "signup", "email": email})
    client.auth.resend({"type": "signup", "email": fresh("nobody")})
    expect(len(mails(email)) == 2, "nothing to resend")
    bad = httpx.post(f"{url}/auth/v1/resend", headers={"apikey": anon}, json={"type": "invite", "email": email})
    expect(bad.status_code == 400 and "signup, email_change" in bad.text, f"bad type: {bad.status_code} {bad.text}")

    # An unconfirmed address signed up again: its confirmation is mailed again, the same user.
    waiting = fresh("waiting")
    one = create_client(url, anon).auth.sign_up({"email": waiting, "password": "a-password"})
    two = create_client(url, anon).auth.sign_up({"email": waiting, "password": "a-password"})
    expect(one.user.id == two.user.id and len(mails(waiting)) == 2, "an unconfirmed sign-up again re-sends")

    # PKCE sign-up: the mailed link answers an auth code that the app's verifier exchanges.
    pkce = create_client(url, anon, options=ClientOptions(flow_type="pkce"))
    pkce_email = fresh("pkce")
    pkce.auth.sign_up({"email": pkce_email, "password": "a-password"})
    link = re.search(r"(http\S+/auth/v1/verify\S+)", mails(pkce_email)[-1]["text"]).group(1)
    code = parse_qs(urlparse(httpx.get(link, follow_redirects=False).headers["location"]).query)["code"][0]
    exchanged = pkce.auth.exchange_code_for_session({"auth_code": code})
    expect(exchanged.session is not None and exchanged.user.email_confirmed_at, f"PKCE sign-up: {exchanged}")
    user_client = client
else:
    email = fresh("change")
    user_client = create_client(url, anon, options=ClientOptions(flow_type="implicit"))
    user_client.auth.sign_up({"email": email, "password": "a-password"})

# Email change: both addresses are mailed; with confirmation required both must confirm
# (GoTrue's secure email change), otherwise either one completes it.
new_email = fresh("new")
changed = user_client.auth.update_user({"email": new_email})
expect(changed.user.email == email and changed.user.new_email == new_email, f"pending change: {changed.user}")
current_code, current_mail = last_code(email)
new_code, new_mail = last_code(new_email)
expect(new_mail["subject"] == "Confirm your new email address" and new_email in current_mail["text"], f"change mails: {new_mail} {current_mail}")
if mode == "required":
    user_client.auth.resend({"type": "email_change", "email": email})
    current_code, _ = last_code(email)
    new_code, _ = last_code(new_email)
    first = httpx.post(f"{url}/auth/v1/verify", headers={"apikey": anon}, json={"type": "email_change", "email": new_email, "token": new_code})
    expect(first.status_code == 200 and "proceed to confirm link sent to the other email" in first.json().get("msg", ""), f"first of two: {first.text}")
done = user_client.auth.verify_otp({"email": email, "token": current_code, "type": "email_change"})
expect(done.session is not None and done.user.email == new_email and not done.user.new_email, f"changed: {done.user}")
expect(create_client(url, anon).auth.sign_in_with_password({"email": new_email, "password": "a-password"}).session, "signs in with the new email")

# Another user's address is refused.
taken = fresh("taken")
create_client(url, anon).auth.sign_up({"email": taken, "password": "a-password"})
refused(lambda: user_client.auth.update_user({"email": taken}), "email_exists")
print("ok")
