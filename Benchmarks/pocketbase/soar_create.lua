-- wrk: soar, one new device-token row a request (a create, not an upsert), as the user.
local user, jwt, anon = os.getenv("SOAR_USER"), os.getenv("SOAR_TOKEN"), os.getenv("SOAR_ANON")
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
request = function()
  local token = string.format("%08x%08x%08x%08x", math.random(0, 0x7fffffff), math.random(0, 0x7fffffff),
    math.random(0, 0x7fffffff), math.random(0, 0x7fffffff))
  return wrk.format("POST", "/rest/v1/device_tokens", {
    ["apikey"] = anon, ["Authorization"] = "Bearer " .. jwt, ["Content-Type"] = "application/json", ["Prefer"] = "return=minimal",
  }, '{"user_id":"' .. user .. '","token":"' .. token .. '","platform":"ios"}')
end
