-- POSTs the file BODY as a new object each time (up/<thread>-<n>.bin), with the service_role KEY.
local body = io.open(os.getenv("BODY"), "rb"):read("*a")
local key = os.getenv("KEY")
local counter = 0
local id = tostring(math.random(1, 1e9))
request = function()
  counter = counter + 1
  return wrk.format("POST", "/storage/v1/object/bench/up/" .. id .. "-" .. counter .. ".bin",
    { ["apikey"] = key, ["Authorization"] = "Bearer " .. key, ["content-type"] = "application/octet-stream" }, body)
end
