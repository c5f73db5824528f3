"""Sign in with Apple against a running `soar serve`, through the PyPI supabase client.

Usage: apple_sign_in.py keys DIR          writes DIR/jwks.json (Apple's key set, as Apple publishes it) and DIR/key.pem
       apple_sign_in.py run URL ANON DIR  signs identity tokens with DIR/key.pem as Apple would, and checks what soar does

soar serve runs with GOTRUE_EXTERNAL_APPLE_CLIENT_ID=com.example.app and SOAR_APPLE_JWKS_URL=file://DIR/jwks.json.
Prints "ok" when every step behaves as GoTrue; otherwise the failed step, and exits 1.
"""
import base64
import hashlib
import json
import sys
import time
import uuid

import httpx
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


def b64(number):
    raw = number.to_bytes((number.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


if sys.argv[1] == "keys":
    folder = sys.argv[2]
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    numbers = key.public_key().public_numbers()
    jwks = {"keys": [{"kty": "RSA", "kid": "apple-test-1", "use": "sig", "alg": "RS256", "n": b64(numbers.n), "e": b64(numbers.e)}]}
    open(f"{folder}/jwks.json", "w").write(json.dumps(jwks))
    open(f"{folder}/key.pem", "wb").write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    sys.exit(0)

from supabase import create_client  # noqa: E402
from peer import expect  # noqa: E402

url, anon, folder = sys.argv[2], sys.argv[3], sys.argv[4]
key = open(f"{folder}/key.pem", "rb").read()


def identity_token(sub, nonce=None, aud="com.example.app", exp=None, kid="apple-test-1", email=None, signing_key=key, algorithm="RS256"):
    claims = {"iss": "https://appleid.apple.com", "aud": aud, "sub": sub, "iat": int(time.time()), "exp": exp or int(time.time()) + 600}
    if nonce is not None:
        claims["nonce"] = hashlib.sha256(nonce.encode()).hexdigest()
    if email:
        claims["email"] = email
        claims["email_verified"] = "true"
    return jwt.encode(claims, signing_key, algorithm=algorithm, headers={"kid": kid})


# A first sign-in makes the user; the same Apple account signs in as the same user.
sub = f"001234.{uuid.uuid4().hex}.0420"
email = f"{uuid.uuid4().hex[:8]}@privaterelay.appleid.com"
client = create_client(url, anon)
first = client.auth.sign_in_with_id_token({"provider": "apple", "token": identity_token(sub, nonce="raw-nonce-1", email=email), "nonce": "raw-nonce-1"})
expect(first.session is not None and first.user.email == email, f"first sign-in: {first}")
expect(first.user.app_metadata.get("provider") == "apple", f"app_metadata: {first.user.app_metadata}")
again = create_client(url, anon).auth.sign_in_with_id_token({"provider": "apple", "token": identity_token(sub, nonce="raw-nonce-2"), "nonce": "raw-nonce-2"})
expect(again.user.id == first.user.id, "the same Apple account is the same user")
expect(client.table("todos").insert({"title": "from Apple"}).execute().data[0]["user_id"] == first.user.id, "the session reaches the data API")

# A password user whose confirmed email Apple verifies is the same user afterwards (linked).
linked_email = f"{uuid.uuid4().hex[:8]}@example.com"
password_user = create_client(url, anon).auth.sign_up({"email": linked_email, "password": "correct-horse"}).user
linked = create_client(url, anon).auth.sign_in_with_id_token({"provider": "apple", "token": identity_token(f"001234.{uuid.uuid4().hex}.0421", email=linked_email)})
expect(linked.user.id == password_user.id and "apple" in linked.user.app_metadata.get("providers", []), f"linked: {linked.user}")


# Refused, each with GoTrue's answer and no user made.
def refused(token, nonce=None, provider="apple"):
    body = {"provider": provider, "id_token": token}
    if nonce is not None:
        body["nonce"] = nonce
    return httpx.post(f"{url}/auth/v1/token?grant_type=id_token", headers={"apikey": anon}, json=body)


other = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
    serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
cases = {
    "expired": refused(identity_token(sub, exp=int(time.time()) - 10)),
    "another app's": refused(identity_token(sub, aud="com.other.app")),
    "a wrong nonce": refused(identity_token(sub, nonce="sent"), nonce="other"),
    "a nonce missing": refused(identity_token(sub, nonce="sent")),
    "an unknown key id": refused(identity_token(sub, kid="not-apples")),
    "another key": refused(identity_token(sub, signing_key=other)),
    "alg none": refused(jwt.encode({"iss": "https://appleid.apple.com", "aud": "com.example.app", "sub": sub, "exp": int(time.time()) + 600}, None, algorithm="none")),
    "HS256 with the public key's bytes": refused(identity_token(sub, signing_key="a-secret", algorithm="HS256")),
    "another provider": refused(identity_token(sub), provider="google"),
}
for what, answer in cases.items():
    expect(answer.status_code == 400 and "error_description" in answer.json(), f"{what}: {answer.status_code} {answer.text}")
expect("Nonces mismatch" in cases["a wrong nonce"].json()["error_description"], cases["a wrong nonce"].text)
print("ok")
