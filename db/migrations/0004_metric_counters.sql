CREATE TABLE `metric_counters` (
	`name` text NOT NULL,
	`labels` text NOT NULL,
	`value` real DEFAULT 0 NOT NULL,
	PRIMARY KEY(`name`, `labels`)
);
