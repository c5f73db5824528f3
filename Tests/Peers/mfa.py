"""TOTP second factors against a running `soar serve`, through the PyPI supabase client, with
codes computed as an authenticator app computes them (RFC 6238).

Usage: mfa.py URL ANON_KEY
The server's schema has `public.vault` under a policy that asks for `aal2`.
Prints "ok" when every step behaves as GoTrue; otherwise the failed step, and exits 1.
"""
import base64
import hashlib
import hmac
import struct
import sys
import time
import uuid

from supabase import ClientOptions, create_client
from supabase_auth.errors import AuthApiError
from peer import expect

url, anon = sys.argv[1], sys.argv[2]


def totp(secret, at=None):
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    counter = int((at or time.time()) // 30)
    mac = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = mac[19] & 0x0F
    return "%06d" % ((struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000)


client = create_client(url, anon, options=ClientOptions(flow_type="implicit"))
email = f"mfa-{uuid.uuid4().hex[:8]}@example.com"
client.auth.sign_up({"email": email, "password": "correct-horse"})
expect(client.auth.mfa.get_authenticator_assurance_level().current_level == "aal1", "aal1 after a password")
# At aal1 the vault's policy lets nothing through.
expect(client.table("vault").select("*").execute().data == [], "aal1 reads nothing")

enrolled = client.auth.mfa.enroll({"factor_type": "totp", "friendly_name": "phone"})
expect(enrolled.totp.secret and enrolled.totp.uri.startswith("otpauth://totp/") and "<svg" in enrolled.totp.qr_code, f"enroll: {enrolled}")
try:
    client.auth.mfa.enroll({"factor_type": "totp", "friendly_name": "phone"})
    expect(False, "a second factor with the same name")
except AuthApiError as error:
    expect(error.code == "mfa_factor_name_conflict", error.code)

challenge = client.auth.mfa.challenge({"factor_id": enrolled.id})
try:
    client.auth.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": "000000" if totp(enrolled.totp.secret) != "000000" else "111111"})
    expect(False, "a wrong code")
except AuthApiError as error:
    expect(error.code == "mfa_verification_failed", error.code)
challenge = client.auth.mfa.challenge({"factor_id": enrolled.id})
client.auth.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": totp(enrolled.totp.secret)})
level = client.auth.mfa.get_authenticator_assurance_level()
expect(level.current_level == "aal2", f"aal2 after the code: {level}")
try:
    client.auth.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": totp(enrolled.totp.secret)})
    expect(False, "a challenge is verified once")
except AuthApiError as error:
    expect(error.code == "mfa_challenge_not_found", error.code)
factors = client.auth.mfa.list_factors()
expect([f.id for f in factors.totp] == [enrolled.id], f"verified factors: {factors}")

# At aal2 the vault opens; a refresh keeps aal2.
expect(client.table("vault").insert({"secret": "launch codes"}).execute().data[0]["secret"] == "launch codes", "aal2 writes")
client.auth.refresh_session()
expect(client.auth.mfa.get_authenticator_assurance_level().current_level == "aal2", "aal2 survives a refresh")
expect(len(client.table("vault").select("*").execute().data) == 1, "aal2 reads")

# A new password sign-in is aal1 again: the vault is closed, and a verified factor cannot be removed from it.
other = create_client(url, anon, options=ClientOptions(flow_type="implicit"))
other.auth.sign_in_with_password({"email": email, "password": "correct-horse"})
expect(other.auth.mfa.get_authenticator_assurance_level().next_level == "aal2", "the user has a second factor to use")
expect(other.table("vault").select("*").execute().data == [], "aal1 reads nothing again")
try:
    other.auth.mfa.unenroll({"factor_id": enrolled.id})
    expect(False, "unenroll at aal1")
except AuthApiError as error:
    expect(error.code == "insufficient_aal", error.code)
client.auth.mfa.unenroll({"factor_id": enrolled.id})
expect(client.auth.mfa.list_factors().all == [], "unenrolled")
print("ok")
