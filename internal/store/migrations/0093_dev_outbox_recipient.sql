-- The dev mailbox lists one recipient's newest messages (the widget's dev
-- inbox, and every browser test and email benchmark reading a code back);
-- without this index that read sorted the whole table, once per message.
CREATE INDEX dev_outbox_recipient ON dev_outbox(lower(recipient), created_at, message_id);
