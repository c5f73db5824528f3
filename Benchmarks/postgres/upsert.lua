-- wrk: token upserts as seed 000's registrar sends them, one random token a request.
-- SOAR_USER, SOAR_TOKEN (the user's JWT) and SOAR_ANON come from the environment.
local user, jwt, anon = os.getenv("SOAR_USER"), os.getenv("SOAR_TOKEN"), os.getenv("SOAR_ANON")
math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16))

request = function()
  local token = string.format("%08x%08x%08x%08x", math.random(0, 0x7fffffff), math.random(0, 0x7fffffff),
    math.random(0, 0x7fffffff), math.random(0, 0x7fffffff))
  local body = '{"user_id":"' .. user .. '","token":"' .. token .. '","platform":"ios"}'
  return wrk.format("POST", "/rest/v1/device_tokens?on_conflict=user_id,token", {
    ["apikey"] = anon,
    ["Authorization"] = "Bearer " .. jwt,
    ["Content-Type"] = "application/json",
    ["Prefer"] = "resolution=merge-duplicates,return=minimal",
  }, body)
end
