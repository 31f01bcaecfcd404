-- A deleted member's OIDC provider tokens are cleared at the deletion
-- (Service.MemberDeleted). Members deleted before that kept theirs: clear
-- them too, so none outlive a deletion however old.
UPDATE sso_registrations SET tokens = ''
WHERE tokens <> '' AND member_id IN (SELECT member_id FROM members WHERE status = 'deleted');
