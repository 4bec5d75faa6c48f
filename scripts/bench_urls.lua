-- wrk script for scripts/bench: each request is a random line of the file in BENCH_URLS (paths under the
-- address wrk is given). With BENCH_UNIQUE=1 every request also carries a new `n` query parameter, so no
-- answer can come from the response cache. Reports like bench.lua.
dofile("scripts/bench.lua")

local paths = {}
for line in io.lines(os.getenv("BENCH_URLS")) do
  if line ~= "" then paths[#paths + 1] = line end
end
local unique = os.getenv("BENCH_UNIQUE") == "1"
local counter = 0

request = function()
  local path = paths[math.random(#paths)]
  if unique then
    counter = counter + 1
    path = path .. (path:find("?", 1, true) and "&" or "?") .. "n=" .. counter
  end
  return wrk.format("GET", path)
end
