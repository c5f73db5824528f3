-- wrk: PocketBase, one new device-token record a request, as the user.
local user, jwt = os.getenv("PB_USER"), os.getenv("PB_TOKEN")
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
request = function()
  local token = string.format("%08x%08x%08x%08x", math.random(0, 0x7fffffff), math.random(0, 0x7fffffff),
    math.random(0, 0x7fffffff), math.random(0, 0x7fffffff))
  return wrk.format("POST", "/api/collections/device_tokens/records", {
    ["Authorization"] = jwt, ["Content-Type"] = "application/json",
  }, '{"user":"' .. user .. '","token":"' .. token .. '","platform":"ios"}')
end
