-- GETs /render/image/public/bench/photos/<n>.jpg as a 128 px WebP: 100 photos at 81 qualities,
-- so each request is a render not made before (until 8,100 of them); each wrk thread takes its
-- own half of the pairs.
local threads = 0
function setup(thread)
  thread:set("start", threads * 4050)
  threads = threads + 1
end

local counter
request = function()
  counter = counter or start
  local photo = counter % 100
  local quality = 20 + math.floor(counter / 100) % 81
  counter = counter + 1
  return wrk.format("GET", "/storage/v1/render/image/public/bench/photos/" .. photo .. ".jpg?width=128&height=128&format=webp&quality=" .. quality)
end

-- Only renders count: an error answer would look like speed.
function response(status)
  if status ~= 200 then error("render answered " .. status) end
end
