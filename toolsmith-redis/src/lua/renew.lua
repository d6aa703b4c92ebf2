-- renew. KEYS: lease, started. ARGV: [1] token, [2] lease ms. -> {'ok', ''} | {'not_holder', ''}
local rec, _, answer = held(KEYS[1], ARGV[1])
if answer then return answer end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
-- A started marker (only ever the holder's while a lease lives) outlives the lease by the window.
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('PEXPIRE', KEYS[2], string.format('%d', tonumber(ARGV[2]) + rec.window_ms))
end
return {'ok', ''}
