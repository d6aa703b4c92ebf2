-- finish. KEYS: lease, started, outcome[, kept]. ARGV: [1] token, [2] outcome record,
-- [3] window ms[, [4] kept record, [5] kept ttl ms].
-- -> {'ok', ''} | {'not_holder', ''} | {'exists', kept key}
-- The value the outcome names is kept in the same step: both are written, or neither.
local _, _, answer = held(KEYS[1], ARGV[1])
if answer then return answer end
if KEYS[4] then
  if redis.call('EXISTS', KEYS[4]) == 1 then return {'exists', KEYS[4]} end
  redis.call('SET', KEYS[4], ARGV[4], 'PX', ARGV[5])
end
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
redis.call('DEL', KEYS[1], KEYS[2])
return {'ok', ''}
