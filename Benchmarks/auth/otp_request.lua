-- wrk: soar's POST /otp for a new address each request (a user made, a code mailed to the
-- development mailbox and its log line).
local counter = 0
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end
function init(args) sent = 0 end
function request()
  sent = sent + 1
  return wrk.format("POST", "/auth/v1/otp", { ["apikey"] = os.getenv("APIKEY"), ["Content-Type"] = "application/json" },
    '{"email":"otp-' .. id .. '-' .. sent .. '@example.com"}')
end
