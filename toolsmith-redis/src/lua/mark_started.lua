-- mark_started. KEYS: lease, started. ARGV: [1] token. -> {'ok', ''} | {'not_holder', ''}
-- The started marker is a copy of the lease record that lives for the window after the lease's
-- expiry: when the lease lapses with the marker still there, the next claim records the run's
-- outcome as unknown.
local rec, raw, answer = held(KEYS[1], ARGV[1])
if answer then return answer end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = 0 end
redis.call('SET', KEYS[2], raw, 'PX', string.format('%d', ttl + rec.window_ms))
return {'ok', ''}
