-- A device token belongs to one device, and a device to the user who registered it last: when
-- another user registers a token, the rows other users still hold for it go (a sign-out whose
-- wipe never reached the server leaves such a row), so the device never gets their pushes.
CREATE TRIGGER device_tokens_one_owner_insert AFTER INSERT ON device_tokens
BEGIN
    DELETE FROM device_tokens WHERE token = NEW.token AND user_id <> NEW.user_id;
END;
CREATE TRIGGER device_tokens_one_owner_update AFTER UPDATE OF token, user_id ON device_tokens
BEGIN
    DELETE FROM device_tokens WHERE token = NEW.token AND user_id <> NEW.user_id;
END;
