-- wrk: PocketBase's auth-refresh: the user's token checked and a new one issued.
request = function()
  return wrk.format("POST", "/api/collections/users/auth-refresh", { ["Authorization"] = os.getenv("PB_TOKEN") }, "")
end
