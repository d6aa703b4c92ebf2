-- finish. KEYS: lease, started, outcome. ARGV: [1] token, [2] outcome record, [3] window ms.
-- -> {'ok', ''} | {'not_holder', ''}
local _, _, answer = held(KEYS[1], ARGV[1])
if answer then return answer end
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
redis.call('DEL', KEYS[1], KEYS[2])
return {'ok', ''}
