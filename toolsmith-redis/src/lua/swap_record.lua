-- swap_record. KEYS: record. ARGV: [1] the expected version ('0': no record), [2] the new
-- version, [3] the value (JSON), [4] ttl ms. -> {'ok', new version} | {'stale', ''}
-- The record is a hash (toolsmith = 'record', version, value) that Redis drops at its expiry,
-- so an expired record is absent: version '0'. Versions are the decimal strings the client
-- writes, compared as strings (never as Lua numbers, whose doubles round past 2^53).
local kind = redis.call('TYPE', KEYS[1]).ok
local current = '0'
if kind == 'hash' then
  local f = redis.call('HMGET', KEYS[1], 'toolsmith', 'version')
  if f[1] ~= 'record' or type(f[2]) ~= 'string' or not string.match(f[2], '^[1-9]%d*$') then
    return {'foreign', KEYS[1]}
  end
  current = f[2]
elseif kind ~= 'none' then
  return {'foreign', KEYS[1]}
end
if current ~= ARGV[1] then return {'stale', ''} end
redis.call('HSET', KEYS[1], 'toolsmith', 'record', 'version', ARGV[2], 'value', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {'ok', ARGV[2]}
