"""Image transforms through storage3: a 1024 px JPEG rendered as a 128 px WebP (cover), contained,
filled, PNG; a signed render URL; and what must be refused: a decompression bomb (a small PNG
that would decode to 100 megapixels), a file that is not an image, bad parameters."""
import io
import sys
import zlib
import struct

import httpx
from PIL import Image
from peer import expect
from storage3.exceptions import StorageApiError
from supabase import create_client

url, service = sys.argv[1], sys.argv[2]
admin = create_client(url, service)
keyed = {"apikey": service, "Authorization": f"Bearer {service}"}
admin.storage.create_bucket("pictures", options={"public": True})
pictures = admin.storage.from_("pictures")

photo = io.BytesIO()
Image.new("RGB", (1024, 768), (200, 30, 30)).save(photo, "JPEG", quality=90)
pictures.upload("photo.jpg", photo.getvalue(), {"content-type": "image/jpeg"})


def rendered(data):
    return Image.open(io.BytesIO(data))


thumb = pictures.download("photo.jpg", {"transform": {"width": 128, "height": 128, "format": "webp"}})
image = rendered(thumb)
expect(image.format == "WEBP" and image.size == (128, 128), f"cover to 128x128 WebP: {image.format} {image.size}")
contained = rendered(pictures.download("photo.jpg", {"transform": {"width": 128, "height": 128, "resize": "contain"}}))
expect(contained.size == (128, 96) and contained.format == "JPEG", f"contain keeps the proportions: {contained.size}")
filled = rendered(pictures.download("photo.jpg", {"transform": {"width": 100, "height": 300, "resize": "fill"}}))
expect(filled.size == (100, 300), f"fill stretches: {filled.size}")
wide = rendered(pictures.download("photo.jpg", {"transform": {"width": 256}}))
expect(wide.size == (256, 192), f"a width alone keeps the proportions: {wide.size}")
png = httpx.get(f"{url}/storage/v1/render/image/public/pictures/photo.jpg?width=64&format=png")
expect(png.status_code == 200 and png.headers["content-type"] == "image/png" and rendered(png.content).size == (64, 48), "a public render as PNG")
again = httpx.get(f"{url}/storage/v1/render/image/public/pictures/photo.jpg?width=64&format=png")
expect(again.content == png.content, "the render is kept and served again")
signed = pictures.create_signed_url("photo.jpg", 60, {"transform": {"width": 32, "height": 32}})
expect("/render/image/sign/" in signed["signedURL"], f"a signed render URL: {signed['signedURL']}")
small = httpx.get(signed["signedURL"])
expect(small.status_code == 200 and rendered(small.content).size == (32, 32), "a signed render")

# A decompression bomb: 10,000 x 10,000 pixels of one colour compress to a few kilobytes.
def bomb_png(side):
    row = b"\x00" + b"\x00" * side
    raw = zlib.compress(row * side, 9)
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0)) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")

bomb = bomb_png(10_000)
expect(len(bomb) < 200_000, f"the bomb is small: {len(bomb)}")
pictures.upload("bomb.png", bomb, {"content-type": "image/png"})
refused = httpx.get(f"{url}/storage/v1/render/image/public/pictures/bomb.png?width=64")
expect(refused.json().get("statusCode") == "413", f"a decompression bomb is refused before decoding: {refused.text}")
pictures.upload("notes.txt", b"not an image", {"content-type": "text/plain"})
text = httpx.get(f"{url}/storage/v1/render/image/public/pictures/notes.txt?width=64")
expect(text.status_code == 400 and "unsupported" in text.json()["message"], f"not an image: {text.text}")
noisy = Image.effect_noise((512, 512), 64).convert("RGB")
buffer = io.BytesIO()
noisy.save(buffer, "JPEG", quality=95)
pictures.upload("noisy.jpg", buffer.getvalue(), {"content-type": "image/jpeg"})
sizes = {q: len(httpx.get(f"{url}/storage/v1/render/image/public/pictures/noisy.jpg?width=256&format=jpeg&quality={q}").content) for q in (20, 90)}
expect(sizes[20] < sizes[90] * 0.7, f"quality 20 makes a smaller file than 90: {sizes}")
for q in ("19", "101", "high"):
    out = httpx.get(f"{url}/storage/v1/render/image/public/pictures/photo.jpg?width=64&quality={q}")
    expect(out.status_code == 400 and "quality" in out.json()["message"], f"quality={q}: {out.text}")
bad = httpx.get(f"{url}/storage/v1/render/image/public/pictures/photo.jpg?width=64&resize=stretch")
expect(bad.status_code == 400 and "resize" in bad.json()["message"], f"a bad resize: {bad.text}")
print("ok")
