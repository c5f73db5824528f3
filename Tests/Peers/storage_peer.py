"""What the storage peer scripts share: new users signed up through supabase-py, and a call
expected to be refused with Storage's status and code."""
import uuid

from peer import expect
from storage3.exceptions import StorageApiError
from supabase import create_client


def user(url, anon):
    """A new user's client, signed in, and their id."""
    client = create_client(url, anon)
    signed = client.auth.sign_up({"email": f"u{uuid.uuid4().hex[:8]}@example.com", "password": "correct-horse-battery"})
    return client, signed.user.id


def refused(what, call, status, code):
    try:
        call()
    except StorageApiError as error:
        expect(str(error.status) == status and error.code == code, f"{what}: {error.status} {error.code} {error.message}")
        return error
    expect(False, f"{what}: not refused")
