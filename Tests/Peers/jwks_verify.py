"""Verifies an access token against soar's published keys, as a third party would.

Usage: jwks_verify.py URL TOKEN   prints the key id and subject when the token verifies; exits 1 otherwise.
"""
import sys

import httpx
import jwt

url, token = sys.argv[1], sys.argv[2]
jwks = httpx.get(f"{url}/auth/v1/.well-known/jwks.json").json()
kid = jwt.get_unverified_header(token)["kid"]
key = jwt.PyJWKSet.from_dict(jwks)[kid]
claims = jwt.decode(token, key.key, algorithms=["ES256"], audience="authenticated")
print(kid, claims["sub"])
