-- wrk: soar's POST /verify, each request one mailed code (from CODES, "email code" lines, shared
-- out among the threads); a thread stops when its codes run out.
local threads, counter = tonumber(os.getenv("THREADS")), 0
function setup(thread)
  thread:set("id", counter)
  counter = counter + 1
end
function init(args)
  codes = {}
  local index = 0
  for email, code in io.open(os.getenv("CODES")):read("*a"):gmatch("(%S+) (%d+)\n") do
    if index % threads == id then table.insert(codes, { email, code }) end
    index = index + 1
  end
  next_code = 1
end
function request()
  local pair = codes[next_code]
  if not pair then
    wrk.thread:stop()
    pair = codes[1]
  end
  next_code = next_code + 1
  return wrk.format("POST", "/auth/v1/verify", { ["apikey"] = os.getenv("APIKEY"), ["Content-Type"] = "application/json" },
    '{"type":"email","email":"' .. pair[1] .. '","token":"' .. pair[2] .. '"}')
end
