-- Device tokens are stored in lowercase hex (the server now folds them on every write and filter).
-- Rows written before in another case are folded in: of one user's rows for one device, the newest
-- stays; of different users' rows for one device, the latest user's stays (the one-owner rule);
-- then the rest are lowercased.
DELETE FROM device_tokens WHERE EXISTS (
    SELECT 1 FROM device_tokens AS newer
    WHERE lower(newer.token) = lower(device_tokens.token) AND newer.token <> device_tokens.token
      AND newer.user_id = device_tokens.user_id
      AND (newer.updated_at > device_tokens.updated_at OR (newer.updated_at = device_tokens.updated_at AND newer.token > device_tokens.token)));
DELETE FROM device_tokens WHERE EXISTS (
    SELECT 1 FROM device_tokens AS newer
    WHERE lower(newer.token) = lower(device_tokens.token) AND newer.user_id <> device_tokens.user_id
      AND (newer.updated_at > device_tokens.updated_at OR (newer.updated_at = device_tokens.updated_at AND newer.user_id > device_tokens.user_id)));
UPDATE device_tokens SET token = lower(token) WHERE token <> lower(token);
