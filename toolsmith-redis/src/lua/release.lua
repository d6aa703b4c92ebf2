-- release. KEYS: lease, started. ARGV: [1] token. -> {'ok', ''} | {'not_holder', ''}
local _, _, answer = held(KEYS[1], ARGV[1])
if answer then return answer end
redis.call('DEL', KEYS[1], KEYS[2])
return {'ok', ''}
