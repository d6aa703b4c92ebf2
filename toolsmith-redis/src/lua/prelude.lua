-- toolsmith-redis: the helpers every script of the store starts with (prepended to each script).
-- Every script answers {tag, data}; {'foreign', key} when a key it reads holds something this
-- store did not write (another type, or a value that is not a toolsmith record), which the
-- client reports as an error and never reads as state.

-- The string under `key`: (value or false, false), or (nil, true) when it is of another type.
local function read(key)
  local v = redis.pcall('GET', key)
  if type(v) == 'table' then return nil, true end
  return v, false
end

-- The lease under `key` if `token` holds it: (record, raw, nil); else (nil, nil, answer).
local function held(key, token)
  local raw, wrong = read(key)
  if wrong then return nil, nil, {'foreign', key} end
  if not raw then return nil, nil, {'not_holder', ''} end
  local ok, rec = pcall(cjson.decode, raw)
  if not ok or type(rec) ~= 'table' or rec.toolsmith ~= 'lease'
      or type(rec.token) ~= 'string' or type(rec.window_ms) ~= 'number' then
    return nil, nil, {'foreign', key}
  end
  if rec.token ~= token then return nil, nil, {'not_holder', ''} end
  return rec, raw, nil
end
