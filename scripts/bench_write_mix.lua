-- wrk script for scripts/bench: the read mix of bench_urls.lua (a random line of BENCH_URLS for each request)
-- with one request in twenty a note write instead: PATCH /api/v1/notes/{id} of a random note of BENCH_NOTES,
-- changing its field notes (so every write changes data and invalidates what was cached), with the key in
-- BENCH_KEY. Reports like bench.lua, which fails the run on any 4xx/5xx answer.
dofile("scripts/bench.lua")

local function lines(file)
  local list = {}
  for line in io.lines(file) do
    if line ~= "" then list[#list + 1] = line end
  end
  return list
end

local paths = lines(os.getenv("BENCH_URLS"))
local notes = lines(os.getenv("BENCH_NOTES"))
local headers = {["Authorization"] = "Bearer " .. os.getenv("BENCH_KEY"), ["Content-Type"] = "application/json"}
local counter = 0

request = function()
  if math.random() < 0.05 then
    counter = counter + 1
    local body = string.format('{"fields":{"fieldNotes":"Bench write %d"}}', counter)
    return wrk.format("PATCH", "/api/v1/notes/" .. notes[math.random(#notes)], headers, body)
  end
  return wrk.format("GET", paths[math.random(#paths)])
end
