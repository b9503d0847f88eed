/** ISO weekdays (1 = Monday), as the timetable stores them. */
export const dayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;

export const dayName = (day: number) => dayNames[day - 1] ?? `Day ${day}`;

/** "08:50:00" → "08:50": PostgreSQL `time` without the seconds nobody uses in a timetable. */
export const shortTime = (time: string) => time.slice(0, 5);

export const timetableTypeLabels = {
  school: "Whole school",
  class: "Class",
  teacher: "Teacher",
  exam: "Exams",
} as const;
export type TimetableType = keyof typeof timetableTypeLabels;
