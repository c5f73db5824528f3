-- POSTs the file BODY as a new object each time (up/<thread>-<n>.bin), with the service_role KEY.
local body = io.open(os.getenv("BODY"), "rb"):read("*a")
local key = os.getenv("KEY")
local threads = 0
function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end

local counter = 0
request = function()
  counter = counter + 1
  return wrk.format("POST", "/storage/v1/object/bench/up/" .. id .. "-" .. counter .. ".bin",
    { ["apikey"] = key, ["Authorization"] = "Bearer " .. key, ["content-type"] = "application/octet-stream" }, body)
end

-- Only successful uploads count: a refused one would look like speed.
function response(status)
  if status ~= 200 then error("upload answered " .. status) end
end
