"""PocketBase's side of the benchmark: two collections with owner rules (as the Supabase policies
`auth.uid() = user_id`), an index for the sorted read, a user with 20 rows; prints PB_TOKEN and
PB_USER for the shell. Usage: pocketbase_setup.py URL SUPERUSER_TOKEN USERS_COLLECTION_ID"""
import json
import sys
import urllib.request

url, admin, users = sys.argv[1], sys.argv[2], sys.argv[3]


def call(method, path, body=None, token=admin):
    request = urllib.request.Request(url + path, method=method, data=json.dumps(body).encode() if body is not None else None,
                                     headers={"content-type": "application/json", **({"Authorization": token} if token else {})})
    with urllib.request.urlopen(request) as answer:
        return json.load(answer)


owner = '@request.auth.id != "" && user = @request.auth.id'
user_field = {"name": "user", "type": "relation", "required": True, "collectionId": users, "maxSelect": 1, "cascadeDelete": True}
call("POST", "/api/collections", {
    "name": "device_tokens", "type": "base",
    "fields": [user_field, {"name": "token", "type": "text", "required": True}, {"name": "platform", "type": "text"}],
    "indexes": ["CREATE UNIQUE INDEX idx_device_tokens_user_token ON device_tokens (user, token)"],
    "listRule": owner, "viewRule": owner, "createRule": owner, "updateRule": owner, "deleteRule": owner})
call("POST", "/api/collections", {
    "name": "todos", "type": "base",
    "fields": [user_field, {"name": "title", "type": "text", "required": True}, {"name": "sort_order", "type": "number"},
               {"name": "completed", "type": "bool"}],
    "indexes": ["CREATE INDEX idx_todos_user_sort ON todos (user, sort_order)"],
    "listRule": owner, "viewRule": owner, "createRule": owner, "updateRule": owner, "deleteRule": owner})
call("POST", "/api/collections/users/records", {"email": "bench@example.com", "password": "bench-password", "passwordConfirm": "bench-password"}, token=None)
auth = call("POST", "/api/collections/users/auth-with-password", {"identity": "bench@example.com", "password": "bench-password"}, token=None)
token, user = auth["token"], auth["record"]["id"]
for index in range(20):
    call("POST", "/api/collections/todos/records", {"user": user, "title": f"todo {index}", "sort_order": index}, token=token)
print(f"PB_TOKEN={token}\nPB_USER={user}")
