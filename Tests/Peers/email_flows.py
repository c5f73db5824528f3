"""Email sign-in and recovery against a running `soar serve`, through the PyPI supabase client,
reading the development mailbox as a developer would.

Usage: email_flows.py URL ANON_KEY SERVICE_ROLE_KEY
Prints "ok" when every step behaves as GoTrue; otherwise the failed step, and exits 1.
"""
import re
import sys
import uuid
from urllib.parse import parse_qs, urlparse

import httpx
from supabase import ClientOptions, create_client
from supabase_auth.errors import AuthApiError
from peer import expect

url, anon, service = sys.argv[1], sys.argv[2], sys.argv[3]


def last_mail(to):
    mails = httpx.get(f"{url}/auth/v1/mailbox", headers={"apikey": service, "authorization": f"Bearer {service}"}).json()
    mine = [m for m in mails if m["to"] == to]
    expect(mine, f"a mail to {to} in the mailbox: {mails[-3:]}")
    text = mine[-1]["text"]
    code = re.search(r"\b(\d{6})\b", text).group(1)
    link = re.search(r"(http\S+/auth/v1/verify\S+)", text).group(1)
    return code, link


# A new email signs in with the 6-digit code (implicit flow): the user is made and confirmed.
email = f"otp-{uuid.uuid4().hex[:8]}@example.com"
client = create_client(url, anon, options=ClientOptions(flow_type="implicit"))
client.auth.sign_in_with_otp({"email": email})
code, link = last_mail(email)
session = client.auth.verify_otp({"email": email, "token": code, "type": "email"})
expect(session.session is not None and session.user.email == email and session.user.email_confirmed_at, f"verify_otp: {session}")
try:
    client.auth.verify_otp({"email": email, "token": code, "type": "email"})
    expect(False, "a code works once")
except AuthApiError as error:
    expect(error.code == "otp_expired", f"used code: {error.code} {error}")

# Again within a minute: GoTrue's per-address mail interval.
try:
    client.auth.sign_in_with_otp({"email": email})
    expect(False, "a second mail within a minute is refused")
except AuthApiError as error:
    expect(error.status == 429 and error.code == "over_email_send_rate_limit", f"rate: {error.status} {error.code}")

# The magic link, opened in a browser (implicit flow): back to the site with the session in the fragment.
email2 = f"link-{uuid.uuid4().hex[:8]}@example.com"
client.auth.sign_in_with_otp({"email": email2, "options": {"email_redirect_to": "http://not-allowed.example/x"}})
_, link = last_mail(email2)
opened = httpx.get(link, follow_redirects=False)
location = opened.headers.get("location", "")
fragment = parse_qs(urlparse(location).fragment)
expect(opened.status_code == 303 and "access_token" in fragment and not location.startswith("http://not-allowed"), f"link: {opened.status_code} {location}")
again = httpx.get(link, follow_redirects=False).headers.get("location", "")
expect("error_code=otp_expired" in again, f"a link works once: {again}")

# PKCE (supabase-swift's default): the link answers an auth code that only the app's verifier exchanges.
pkce = create_client(url, anon, options=ClientOptions(flow_type="pkce"))
email3 = f"pkce-{uuid.uuid4().hex[:8]}@example.com"
pkce.auth.sign_in_with_otp({"email": email3})
_, link = last_mail(email3)
location = httpx.get(link, follow_redirects=False).headers.get("location", "")
auth_code = parse_qs(urlparse(location).query).get("code", [None])[0]
expect(auth_code, f"an auth code: {location}")
wrong = httpx.post(f"{url}/auth/v1/token?grant_type=pkce", headers={"apikey": anon}, json={"auth_code": auth_code, "code_verifier": "x" * 50})
expect(wrong.status_code in (400, 404), f"a wrong verifier: {wrong.status_code} {wrong.text}")
email4 = f"pkce-{uuid.uuid4().hex[:8]}@example.com"
pkce4 = create_client(url, anon, options=ClientOptions(flow_type="pkce"))
pkce4.auth.sign_in_with_otp({"email": email4})
_, link = last_mail(email4)
code4 = parse_qs(urlparse(httpx.get(link, follow_redirects=False).headers["location"]).query)["code"][0]
exchanged = pkce4.auth.exchange_code_for_session({"auth_code": code4})
expect(exchanged.session is not None and exchanged.user.email == email4, f"exchange: {exchanged}")
reused = httpx.post(f"{url}/auth/v1/token?grant_type=pkce", headers={"apikey": anon}, json={"auth_code": code4, "code_verifier": "y" * 50})
expect(reused.status_code == 404, f"a code is exchanged once: {reused.status_code}")

# Recovery: a mailed code signs the user in, who sets a new password.
owner = f"owner-{uuid.uuid4().hex[:8]}@example.com"
create_client(url, anon).auth.sign_up({"email": owner, "password": "first-password"})
recovering = create_client(url, anon)
recovering.auth.reset_password_for_email(owner)
code, _ = last_mail(owner)
recovered = recovering.auth.verify_otp({"email": owner, "token": code, "type": "recovery"})
expect(recovered.session is not None, "recovery signs in")
recovering.auth.update_user({"password": "second-password"})
expect(create_client(url, anon).auth.sign_in_with_password({"email": owner, "password": "second-password"}).session is not None, "the new password")
# An unknown email is answered the same, and nothing is mailed.
create_client(url, anon).auth.reset_password_for_email(f"nobody-{uuid.uuid4().hex[:8]}@example.com")

# Without create_user, an unknown email gets no account.
try:
    create_client(url, anon).auth.sign_in_with_otp({"email": f"new-{uuid.uuid4().hex[:8]}@example.com", "options": {"should_create_user": False}})
    expect(False, "should_create_user: false")
except AuthApiError as error:
    expect(error.code == "otp_disabled", f"{error.code}")
# The mailbox is the service role's.
expect(httpx.get(f"{url}/auth/v1/mailbox", headers={"apikey": anon}).status_code in (401, 403), "the mailbox needs the service role")
print("ok")
