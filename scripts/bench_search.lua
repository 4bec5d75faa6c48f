-- wrk script for scripts/bench: each request searches a four-letter infix (consonant, vowel, consonant,
-- vowel: 1,600 queries in turn) and carries a new `n` query parameter, which the route ignores but the
-- response cache keys on, so the search itself is measured, never a kept answer. Reports like bench.lua.
dofile("scripts/bench.lua")

local consonants = {"b", "c", "l", "m", "n", "r", "s", "t"}
local vowels = {"a", "e", "i", "o", "u"}
local counter = 0

request = function()
  local n = counter
  counter = counter + 1
  local query = consonants[n % 8 + 1] .. vowels[math.floor(n / 8) % 5 + 1] .. consonants[math.floor(n / 40) % 8 + 1]
    .. vowels[math.floor(n / 320) % 5 + 1]
  return wrk.format("GET", wrk.path .. query .. "&n=" .. n)
end
