-- wrk script for scripts/bench: each request searches a different four-letter infix (consonant, vowel,
-- consonant, vowel: 1,600 queries in turn, more than the response cache holds), so the search itself is
-- measured, not the cache. Reports like bench.lua.
dofile("scripts/bench.lua")

local consonants = {"b", "c", "l", "m", "n", "r", "s", "t"}
local vowels = {"a", "e", "i", "o", "u"}
local counter = 0

request = function()
  local n = counter
  counter = counter + 1
  local query = consonants[n % 8 + 1] .. vowels[math.floor(n / 8) % 5 + 1] .. consonants[math.floor(n / 40) % 8 + 1]
    .. vowels[math.floor(n / 320) % 5 + 1]
  return wrk.format("GET", wrk.path .. query)
end
