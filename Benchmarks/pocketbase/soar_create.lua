-- wrk: soar, one new device-token row a request (a create, not an upsert), as the user. Only the
-- token changes (always 32 hex digits), so the request's head is formatted once.
local user, jwt, anon = os.getenv("SOAR_USER"), os.getenv("SOAR_TOKEN"), os.getenv("SOAR_ANON")
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))
local head
local function body()
  local token = string.format("%08x%08x%08x%08x", math.random(0, 0x7fffffff), math.random(0, 0x7fffffff),
    math.random(0, 0x7fffffff), math.random(0, 0x7fffffff))
  return '{"user_id":"' .. user .. '","token":"' .. token .. '","platform":"ios"}'
end
request = function()
  local text = body()
  if not head then
    local whole = wrk.format("POST", "/rest/v1/device_tokens", {
      ["apikey"] = anon, ["Authorization"] = "Bearer " .. jwt, ["Content-Type"] = "application/json", ["Prefer"] = "return=minimal",
    }, text)
    head = whole:sub(1, #whole - #text)
  end
  return head .. text
end
