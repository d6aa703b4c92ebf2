-- claim. KEYS: lease, started, outcome.
-- ARGV: [1] the lease record to write, [2] lease ms, [3] window ms, [4] the started record the
-- caller saw on its previous try ('' on the first), [5] the unknown outcome record it built
-- from it ('' on the first), [6] '1' to write the lease started (its marker too), else '0'.
-- -> {'outcome', record} | {'lease', record} | {'started', record} | {'claimed', ''}
local out, wrong = read(KEYS[3])
if wrong then return {'foreign', KEYS[3]} end
if out then return {'outcome', out} end
local lease
lease, wrong = read(KEYS[1])
if wrong then return {'foreign', KEYS[1]} end
if lease then return {'lease', lease} end
local started
started, wrong = read(KEYS[2])
if wrong then return {'foreign', KEYS[2]} end
if started then
  -- The lease of a run that had started has lapsed: its outcome is unknown. The client builds
  -- that record (with the time it was found) from the started record and tries again; it is
  -- written only if the started record is still the one it was built from.
  if ARGV[4] ~= '' and started == ARGV[4] then
    redis.call('SET', KEYS[3], ARGV[5], 'PX', ARGV[3])
    redis.call('DEL', KEYS[2])
    return {'outcome', ARGV[5]}
  end
  return {'started', started}
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if ARGV[6] == '1' then
  -- As mark_started would: the marker outlives the lease by the window.
  local ttl = tonumber(ARGV[2]) + tonumber(ARGV[3])
  redis.call('SET', KEYS[2], ARGV[1], 'PX', string.format('%d', ttl))
end
return {'claimed', ''}
