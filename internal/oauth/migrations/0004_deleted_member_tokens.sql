-- A deleted member's provider tokens are cleared at the deletion
-- (Module.MemberDeleted). Members deleted before that kept theirs: clear
-- them too, so none outlive a deletion however old.
UPDATE member_oauth_registrations SET tokens = ''
WHERE tokens <> '' AND member_id IN (SELECT member_id FROM members WHERE status = 'deleted');
