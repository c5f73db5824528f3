-- wrk: one todo a request through the data API, as the user whose token is TOKEN.
local token, anon = os.getenv("TOKEN"), os.getenv("ANON")
request = function()
  return wrk.format("POST", "/rest/v1/todos", {
    ["apikey"] = anon, ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json", ["Prefer"] = "return=minimal",
  }, '{"title":"' .. string.format("%.6f", os.clock()) .. '"}')
end
