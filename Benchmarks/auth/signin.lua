-- wrk: one password sign-in a request, to soar (GoTrue's /token) or PocketBase (auth-with-password),
-- as PATH, BODY and the server's key in APIKEY say.
local path, body, apikey = os.getenv("PATH_"), os.getenv("BODY"), os.getenv("APIKEY")
request = function()
  local headers = { ["Content-Type"] = "application/json" }
  if apikey and apikey ~= "" then headers["apikey"] = apikey end
  return wrk.format("POST", path, headers, body)
end
