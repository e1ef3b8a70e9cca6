-- Canaries inside a sector (issue 14 item 4): the sector's canary rule as written ({count: N} or
-- {percent: P}, soakHours), validated with the plan document. 0016: 0014 and 0015 are other branches'.
ALTER TABLE `sectors` ADD `canary` text;