-- The one-owner triggers (0006) look a token up on every registration: without this index each
-- looked through the whole table, so registering N devices took time N².
CREATE INDEX device_tokens_token ON device_tokens (token);
